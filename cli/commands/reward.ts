import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { findRewardProblem, isPostgresUrl, openStore, redactPostgresUrl } from '../../store/index.js';
import { UsageError } from '../usage-error.js';
import { resolveStorePath, STORE_PATH_OPTIONS } from '../resolve-store-path.js';
import { openStoreForReading } from './sessions.js';

export const REWARD_HELP = `Usage: tokentap reward SESSION [VALUE] [--component NAME=X ...] [--call ID] [--db FILE | --config FILE]

Stores a reward for a recorded session, for verifiers that run after the rollouts (docs/rollouts.md, "Rewards
after the fact"). The same rule as the rollout API: VALUE, every component and their sum are finite numbers
within ±1e30; with components only, VALUE is their sum. Rewards are append-only: the newest one counts, the
history keeps every one (source "cli"). For one export without writing, see tokentap export --rewards FILE.

  --component NAME=X   a named part of the reward (repeatable): --component correct=1 --component style=0.5
  --call ID            reward one call of the session instead of the whole session
  --db FILE|URL        SQLite file or postgres:// URL (default ./tokentap.db; also TOKENTAP_DB, or "db" in the config file)
  --config FILE        config file (YAML or JSON), as for tokentap serve (also TOKENTAP_CONFIG): its "db" is read

Example: tokentap reward 4f0c2a 1 --component correct=1 --db runs.db
`;

/** A decimal number as a person types it (no hex, no empty string): `Number('')` is 0, `Number('0x1')` is 1. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** `tokentap reward` */
export function runReward(args: string[], env: NodeJS.ProcessEnv): number {
  const options = {
    ...STORE_PATH_OPTIONS,
    component: { type: 'string', multiple: true },
    call: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  // negative values (`tokentap reward r-1 -1`) are values, not flags: parseArgs would read `-1` as one
  const { values, positionals } = parseArgs({ args: args.map((arg) => (/^-\d/.test(arg) ? ` ${arg}` : arg)), options, allowPositionals: true });
  if (values.help) {
    process.stdout.write(REWARD_HELP);
    return 0;
  }
  const [sessionId, valueText, extra] = positionals.map((positional) => positional.trim());
  if (sessionId === undefined || sessionId === '')
    throw new UsageError('give the session: tokentap reward SESSION VALUE (tokentap sessions lists them)');
  if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
  const components = parseComponents(values.component ?? []);
  if (valueText === undefined && components === null) throw new UsageError('give the reward: tokentap reward SESSION VALUE, or --component NAME=X');
  const value = valueText === undefined ? sumOf(components ?? {}) : parseNumber(valueText, 'VALUE');
  // without VALUE the components are checked first: their sum is the value, and a bad sum is the components' fault
  const problem = findRewardProblem({ value: valueText === undefined ? 0 : value, components });
  if (problem !== null) throw new UsageError(`invalid reward: ${problem.field === 'value' ? 'VALUE' : problem.field} ${problem.problem}`);
  const db = resolveStorePath(values, env);
  // never creates a database, never migrates one behind the user's back: the reader's checks first
  if (!isPostgresUrl(db) && !existsSync(db)) throw new UsageError(`no database at ${db} (give --db FILE)`);
  openStoreForReading(db).close();
  const store = openStore({ path: db });
  try {
    if (store.getRollout(sessionId) === null)
      throw new UsageError(`no session ${JSON.stringify(sessionId)} in ${redactPostgresUrl(db)} (tokentap sessions lists them)`);
    const callId = values.call ?? null;
    if (callId !== null && !store.listCalls(sessionId).some((call) => call.id === callId)) {
      throw new UsageError(`session ${sessionId} has no call ${JSON.stringify(callId)} (tokentap show ${sessionId} lists them)`);
    }
    const before = store.listRewards(sessionId).find((row) => row.callId === callId);
    const row = store.addReward({ sessionId, callId, value, components, source: 'cli', createdAt: Date.now() });
    const target = callId === null ? `session ${sessionId}` : `call ${callId} of session ${sessionId}`;
    const parts =
      row.components === null
        ? ''
        : ` (${Object.entries(row.components)
            .map(([name, part]) => `${name} ${part}`)
            .join(', ')})`;
    process.stdout.write(`reward ${row.value}${parts} stored for ${target}${before === undefined ? '' : `, replacing ${before.value}`}\n`);
    return 0;
  } finally {
    store.close();
  }
}

function parseComponents(given: readonly string[]): Record<string, number> | null {
  if (given.length === 0) return null;
  const components: Record<string, number> = {};
  for (const entry of given) {
    const equals = entry.indexOf('=');
    const name = entry.slice(0, equals).trim();
    if (equals <= 0 || name === '') throw new UsageError(`--component ${JSON.stringify(entry)}: give NAME=X, e.g. --component correct=1`);
    if (Object.hasOwn(components, name)) throw new UsageError(`--component ${name} is given twice`);
    components[name] = parseNumber(entry.slice(equals + 1), `--component ${name}`);
  }
  return components;
}

function parseNumber(text: string, what: string): number {
  if (!DECIMAL.test(text.trim())) throw new UsageError(`${what} ${JSON.stringify(text)} is not a number`);
  return Number(text);
}

function sumOf(components: Record<string, number>): number {
  return Object.values(components).reduce((sum, part) => sum + part, 0);
}
