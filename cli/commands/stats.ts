import { parseArgs } from 'node:util';
import { UsageError } from '../usage-error.js';
import { adviseExport, writeAdvice } from './export-advice.js';
import { EXPORT_SELECTION_HELP, EXPORT_SELECTION_OPTIONS, parseSelectionFlags, readRewardsOption } from './export-selection-flags.js';
import { openStoreForReading } from './sessions.js';
import { resolveStorePath, STORE_PATH_OPTIONS } from '../resolve-store-path.js';

export const STATS_HELP = `Usage: tokentap stats [--db FILE | --config FILE] [--json] [selection]

The shape of the dataset an export with the same selection would write: samples and tokens, the length
histogram, the reward and advantage distribution, statuses, faithfulness, chain breaks by kind, policy versions.

  --db FILE|URL        SQLite file or postgres:// URL (default ./tokentap.db; also TOKENTAP_DB, or "db" in the config file)
  --config FILE        config file (YAML or JSON), as for tokentap serve (also TOKENTAP_CONFIG): its "db" is read
  --json               one JSON object instead of the table
${EXPORT_SELECTION_HELP}`;

/** `tokentap stats` */
export async function runStats(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const options = { ...EXPORT_SELECTION_OPTIONS, ...STORE_PATH_OPTIONS, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;
  const { values, positionals } = parseArgs({ args, options, allowPositionals: true });
  if (values.help) {
    process.stdout.write(STATS_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const selection = parseSelectionFlags(values);
  const store = openStoreForReading(resolveStorePath(values, env));
  try {
    const rewardOverrides = readRewardsOption(values.rewards, store);
    const { computeDatasetStats } = await import('../../export/dataset-stats.js');
    const { formatDatasetStats } = await import('../../export/format-dataset-stats.js');
    const stats = computeDatasetStats(store, { ...selection, ...(rewardOverrides === undefined ? {} : { rewardOverrides }) });
    process.stdout.write(values.json === true ? JSON.stringify(stats) + '\n' : formatDatasetStats(stats));
    // on stderr, so --json stays one JSON object
    writeAdvice(process.stderr, adviseExport(store, stats.summary, { selection }), { quiet: false });
    return stats.summary.samples === 0 && values['fail-on-empty'] === true ? 1 : 0;
  } finally {
    store.close();
  }
}
