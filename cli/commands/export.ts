import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isTokentapError } from '../../core/errors/tokentap-error.js';
import type { ExportDatasetResult } from '../../export/export-dataset.js';
import type { ExportSummary } from '../../export/export-options.js';
import { TRAINER_FORMATS } from '../../trainer-adapters/index.js';
import { createProgressBar } from '../progress-bar.js';
import { UsageError } from '../usage-error.js';
import { formatZeroVarianceGroups } from '../../export/format-dataset-stats.js';
import { adviseExport, writeAdvice } from './export-advice.js';
import { EXPORT_SELECTION_HELP, EXPORT_SELECTION_OPTIONS, parseSelectionFlags, readRewardsOption } from './export-selection-flags.js';
import { openStoreForReading } from './sessions.js';
import { resolveStorePath, STORE_PATH_OPTIONS } from '../resolve-store-path.js';

const formatList = (): string =>
  TRAINER_FORMATS.map(
    (entry) =>
      `  ${entry.format.padEnd(13)}${entry.description}${entry.shapes === undefined ? '' : ` (--shape ${entry.shapes.join('|')}, default ${entry.defaultShape})`}`,
  ).join('\n');

export const EXPORT_HELP = (): string => `Usage: tokentap export [--db FILE | --config FILE] --format NAME --out PATH [options]

Streams reconstructed training samples into one dataset file (docs/export.md, docs/formats.md). The file type
comes from --out: .jsonl or .parquet. Memory stays bounded (one group at a time); the file appears only when
complete. Prints a summary: sessions, groups, samples, tokens, trained tokens, and what was dropped and why.

  --db FILE|URL        SQLite file or postgres:// URL (default ./tokentap.db; also TOKENTAP_DB, or "db" in the config file)
  --config FILE        config file (YAML or JSON), as for tokentap serve (also TOKENTAP_CONFIG): its "db" is read
  --format NAME        one of the formats below
  --shape NAME         the format's shape, where it has several
  --out PATH           the file to write (.jsonl or .parquet)
  --force              replace PATH if it exists (refused otherwise)
  --model-dir DIR      the served model's folder (or "qwen3"): tokenizer and chat-template hashes go into the
                       file's provenance (otherwise "unknown")
  --quiet              no summary (errors still go to stderr)
${EXPORT_SELECTION_HELP}
Formats:
${formatList()}
`;

/** `tokentap export` */
export async function runExport(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const options = {
    ...EXPORT_SELECTION_OPTIONS,
    ...STORE_PATH_OPTIONS,
    format: { type: 'string' },
    shape: { type: 'string' },
    out: { type: 'string' },
    force: { type: 'boolean' },
    'model-dir': { type: 'string' },
    quiet: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const { values } = parseArgs({ args, options, strict: true });
  if (values.help) {
    process.stdout.write(EXPORT_HELP());
    return 0;
  }
  // one line, as every mistake is (the smoke test holds it); --help describes each format
  if (values.format === undefined)
    throw new UsageError(`give --format NAME: ${TRAINER_FORMATS.map((entry) => entry.format).join(', ')} (tokentap export --help describes each)`);
  if (values.out === undefined) throw new UsageError('give --out PATH (.jsonl or .parquet)');
  // a folder first: --force replaces a file, never a folder, so it must not be suggested for one
  if (isFolder(values.out)) {
    throw new UsageError(`--out ${values.out} is a folder: give the dataset file's path (e.g. ${join(values.out, 'train.jsonl')})`);
  }
  if (existsSync(values.out) && values.force !== true) throw new UsageError(`${values.out} exists: give --force to replace it`);
  const selection = parseSelectionFlags(values);
  const modelDir = await resolveModelDir(values['model-dir']);
  const store = openStoreForReading(resolveStorePath(values, env));
  const bar = createProgressBar(process.stderr, 'sessions');
  const started = performance.now();
  // Ctrl-C or a kill: stop, remove the temp file, leave no dataset behind
  const interrupt = new AbortController();
  const stop = (): void => interrupt.abort(new UsageError('interrupted: nothing was written'));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    // checked against the database before anything is written: a bad line is EXPORT_INVALID_REWARDS, exit 2
    const rewardOverrides = readRewardsOption(values.rewards, store);
    const { exportDataset } = await import('../../export/export-dataset.js');
    // an unknown format or shape, a bad option or a refused path is a user's mistake: exit 2 by the one rule (cli/report-failure.ts)
    const exported = await emptyAsNull(
      exportDataset(store, {
        ...selection,
        ...(rewardOverrides === undefined ? {} : { rewardOverrides }),
        failOnEmpty: values['fail-on-empty'] === true,
        format: values.format,
        out: values.out,
        ...(values.shape === undefined ? {} : { shape: values.shape }),
        ...(values.force === undefined ? {} : { force: values.force }),
        ...(modelDir === undefined ? {} : { modelDir }),
        onProgress: ({ sessionsDone, sessionsTotal }) => bar.update(sessionsDone, sessionsTotal),
        signal: interrupt.signal,
      }),
    );
    bar.finish();
    const { result, summary } = exported;
    if (result !== null && values.quiet !== true) process.stdout.write(formatExportSummary(result, (performance.now() - started) / 1000));
    writeAdvice(process.stderr, adviseExport(store, summary, { selection, format: values.format }), { quiet: values.quiet === true });
    if (result !== null) return 0;
    process.stderr.write(`tokentap: --fail-on-empty: nothing was written to ${values.out}\n`);
    return 1;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    bar.finish();
    store.close();
  }
}

/** The export's result, or null with the summary when --fail-on-empty refused to write an empty dataset. */
async function emptyAsNull(exported: Promise<ExportDatasetResult>): Promise<{ result: ExportDatasetResult | null; summary: ExportSummary }> {
  try {
    const result = await exported;
    return { result, summary: result.summary };
  } catch (error) {
    if (!isTokentapError(error, 'EXPORT_EMPTY')) throw error;
    return { result: null, summary: error.details?.summary as ExportSummary };
  }
}

/** A folder at the path; a path through a file (`README.md/x.jsonl`) is none, and the writer names its folder. */
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

async function resolveModelDir(value: string | undefined): Promise<string | undefined> {
  if (value !== 'qwen3') return value;
  const { qwen3TokenizerDir } = await import('../../model-format/tokenizer/load-hf-tokenizer.js');
  return qwen3TokenizerDir();
}

/**
 * The summary `tokentap export` prints.
 *
 * @example formatExportSummary(result, 2.5) // 'wrote train.parquet (verl): 812 samples ...'
 */
export function formatExportSummary(result: ExportDatasetResult, seconds: number): string {
  const { summary } = result;
  const megabytes = summary.bytes / 1e6;
  const lines = [
    `wrote ${result.path}: ${megabytes.toFixed(2)} MB in ${seconds.toFixed(1)} s (${(megabytes / Math.max(seconds, 1e-3)).toFixed(1)} MB/s)`,
    `  sessions ${summary.sessions}, groups ${summary.groups}, samples ${summary.samples}`,
    `  tokens ${summary.tokens}, trained ${summary.trainedTokens}${summary.tokens > 0 ? ` (${((100 * summary.trainedTokens) / summary.tokens).toFixed(1)}%)` : ''}`,
    `  dropped: ${formatCounts(summary.dropped)}`,
    `  calls with no sample: ${formatCounts(summary.skippedCalls)}`,
    `  chain breaks: ${formatCounts(summary.drift)}`,
    `  ${formatZeroVarianceGroups(summary)}`,
    `  tokenizer ${result.provenance.tokenizer_hash}, chat template ${result.provenance.chat_template_hash}`,
  ];
  return lines.join('\n') + '\n';
}

function formatCounts(counts: Record<string, number>): string {
  const entries = Object.entries(counts).filter(([, count]) => count > 0);
  return entries.length === 0 ? 'none' : entries.map(([reason, count]) => `${reason} ${count}`).join(', ');
}
