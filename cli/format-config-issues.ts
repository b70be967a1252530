import type { z } from 'zod';

/** How the user set one key: `name` as they wrote it (`--port`, `TOKENTAP_PORT`, `"port"`), `label` with its value and source. */
export interface SettingSource {
  name: string;
  label: string;
  /** a list setting's one entry as the user set it (`--backend "tgi=http://x"`, `"backends" entry 2 in fleet.yaml`) */
  itemLabel?: (index: number) => string;
}

/** What formatConfigIssues needs to know of the schema and of where each value came from. */
export interface ConfigIssuesOptions {
  /** the schema's keys: these words are renamed wherever a message names them (`rewardMin must not exceed rewardMax`) */
  keys: readonly string[];
  sourceOf: (key: string) => SettingSource;
  /** appended to an unknown key's line, e.g. ` in tokentap.json` */
  unknownKeysWhere?: string;
}

/**
 * A schema's refusal in one line, each key named as the user set it (a flag, an environment variable, a config file
 * key) instead of the schema's internal key (z.prettifyError's `→ at estimator` for `--advantage foo`).
 *
 * @example
 * formatConfigIssues(error, { keys: ['port'], sourceOf: (key) => ({ name: `--${key}`, label: `--${key} "abc"` }) });
 * // '--port "abc": Invalid input: expected number, received NaN'
 */
export function formatConfigIssues(error: z.ZodError, options: ConfigIssuesOptions): string {
  const keys = new Set(options.keys);
  // only camelCase keys are renamed inside a message: a one-word key (`host`, `port`) is also an English word
  // ("host names or addresses") and is named by the issue's label instead
  const rename = (message: string): string =>
    message.replace(/\b[a-z][a-z0-9]*[A-Z][a-zA-Z0-9]*\b/g, (word) => (keys.has(word) ? options.sourceOf(word).name : word));
  return error.issues
    .map((issue) => {
      const [key, ...rest] = issue.path.map(String);
      const known = key !== undefined && keys.has(key);
      const unknownKeys =
        issue.code === 'unrecognized_keys'
          ? `unknown key${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((name) => JSON.stringify(name)).join(', ')}`
          : undefined;
      // an unknown key at the top level, or inside a setting's object (an entry of `backends`: named below)
      if (unknownKeys !== undefined && !known) return `${unknownKeys}${options.unknownKeysWhere ?? ''}`;
      const message = unknownKeys ?? rename(issue.message);
      if (!known) return message;
      const source = options.sourceOf(key as string);
      // an issue inside one entry of a list names that entry, as the user wrote it
      const index = issue.path[1];
      const entry = typeof index === 'number' && source.itemLabel !== undefined ? source.itemLabel(index) : undefined;
      const within = entry === undefined ? rest : rest.slice(1);
      const inside = within.length === 0 ? '' : ` (at ${within.join('.')})`;
      return `${entry ?? source.label}${inside}: ${message}`;
    })
    .join('; ');
}
