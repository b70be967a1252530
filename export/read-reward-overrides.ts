import { isRecord } from '../core/json/is-record.js';
import { findRewardProblem } from '../store/index.js';
import type { RewardOverride } from './export-options.js';

/** A line of a rewards file that cannot be used, by its 1-based line number. */
export interface RewardOverrideProblem {
  line: number;
  message: string;
}

export interface RewardOverrides {
  /** session id -> its reward for this export */
  overrides: Map<string, RewardOverride>;
  /** every line that cannot be used; the file is only usable when this is empty */
  problems: RewardOverrideProblem[];
}

const KEYS = new Set(['session', 'reward', 'components']);

/**
 * Reads a rewards file (`tokentap export --rewards FILE`, docs/rollouts.md "Rewards after the fact"): JSON Lines,
 * one session per line, `{"session": "r-1", "reward": 1.0, "components": {"correct": 1}}`. `reward` or
 * `components` (or both) must be given; a reward of components only is their sum, as in the rollout API. Each
 * reward must pass the store's reward rule (findRewardProblem: value, components and their sum finite within
 * ±1e30). Blank lines are skipped. A line that is no JSON object, has another key, names a session the store does
 * not hold (`hasSession`) or one an earlier line named, or breaks the rule, is a problem; every problem is
 * returned with its line number, so one run names them all.
 *
 * @example
 * const { overrides, problems } = readRewardOverrides('{"session":"r-1","reward":1}\n', { hasSession: (id) => store.getRollout(id) !== null });
 * overrides.get('r-1'); // { value: 1, components: null }
 */
export function readRewardOverrides(text: string, options: { hasSession: (sessionId: string) => boolean }): RewardOverrides {
  const overrides = new Map<string, RewardOverride>();
  const firstLine = new Map<string, number>();
  const problems: RewardOverrideProblem[] = [];
  const lines = text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const parsed = parseLine(line);
    if (typeof parsed === 'string') {
      problems.push({ line: index + 1, message: parsed });
      continue;
    }
    const { session, override } = parsed;
    const earlier = firstLine.get(session);
    if (earlier !== undefined) problems.push({ line: index + 1, message: `session ${JSON.stringify(session)} is already given on line ${earlier}` });
    else if (!options.hasSession(session)) problems.push({ line: index + 1, message: `no session ${JSON.stringify(session)} in the database` });
    else {
      firstLine.set(session, index + 1);
      overrides.set(session, override);
    }
  }
  if (overrides.size === 0 && problems.length === 0) problems.push({ line: lines.length, message: 'the file holds no reward line' });
  return { overrides, problems };
}

/** One line as a session and its reward, or what is wrong with it. */
function parseLine(line: string): { session: string; override: RewardOverride } | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'not a JSON object';
  }
  if (!isRecord(value)) return 'not a JSON object';
  const unknown = Object.keys(value).find((key) => !KEYS.has(key));
  if (unknown !== undefined) return `unknown key ${JSON.stringify(unknown)} (a line holds "session", "reward" and "components")`;
  if (typeof value.session !== 'string' || value.session === '') return '"session" must be a session id (a non-empty string)';
  if (value.reward === undefined && value.components === undefined) return 'give "reward", "components" or both';
  const components = value.components ?? null;
  const problem = findRewardProblem({ value: value.reward ?? 0, components });
  if (problem !== null) return `${problem.field === 'value' ? 'reward' : problem.field} ${problem.problem}`;
  const parts = components as Record<string, number> | null;
  const reward = value.reward === undefined ? sumOf(parts ?? {}) : (value.reward as number);
  return { session: value.session, override: { value: reward, components: parts } };
}

function sumOf(components: Record<string, number>): number {
  return Object.values(components).reduce((sum, part) => sum + part, 0);
}
