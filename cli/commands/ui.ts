import { parseArgs } from 'node:util';
import { listenOrExplain } from '../listen-or-explain.js';
import { resolveStorePath, STORE_PATH_OPTIONS } from '../resolve-store-path.js';
import { UsageError } from '../usage-error.js';
import { openStoreForReading } from './sessions.js';
import { createViewerApp } from '../../ui/server/create-viewer-app.js';
import type { ViewerTokenizer } from '../../ui/server/viewer-options.js';
import { VIEWER_PREFIX } from '../../ui/viewer-api.js';

export const UI_HELP = `Usage: tokentap ui [--db FILE|URL | --config FILE] [--port N] [--host ADDRESS] [--tokenizer DIR|qwen3]

Opens the trajectory viewer in the browser: the recorded sessions, their calls and conversations, the
training samples token by token (loss mask, logprobs, policy versions, chain breaks), groups and the
dataset's stats (docs/viewer.md). Read-only: the database is opened read-only and never written.
Its changes are polled each second, so a gateway recording into the same database shows live.
  --db FILE|URL      SQLite file or postgres:// URL (default ./tokentap.db; also TOKENTAP_DB, or "db" in the config file)
  --config FILE      config file (YAML or JSON), as for tokentap serve (also TOKENTAP_CONFIG): its "db" is read
  --port N           port to listen on (default 4100; 0: any free port)
  --host ADDRESS     address to bind (default 127.0.0.1; the viewer has no login: anyone who reaches it
                     reads every prompt and completion, so keep it on loopback, or use serve --ui with an admin token)
  --tokenizer DIR    a Hugging Face model folder (or "qwen3" for the bundled Qwen3 tokenizer): shows each
                     token's text; without it the pages show token ids
`;

const DEFAULT_PORT = 4100;
const DEFAULT_HOST = '127.0.0.1';

/** `tokentap ui`: resolves with the exit code once the viewer has stopped (SIGINT/SIGTERM). */
export async function runUi(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const options = {
    ...STORE_PATH_OPTIONS,
    port: { type: 'string' },
    host: { type: 'string' },
    tokenizer: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options });
  if (values.help) {
    process.stdout.write(UI_HELP);
    return 0;
  }
  if (positionals.length > 0)
    throw new UsageError(`tokentap ui takes no arguments (got ${JSON.stringify(positionals[0])}); give the database with --db`);
  const port = parsePort(values.port);
  const host = values.host ?? DEFAULT_HOST;
  if (host.trim() === '') throw new UsageError('--host needs an address');
  const tokenizer = values.tokenizer === undefined ? undefined : await loadTokenizer(values.tokenizer);
  const db = resolveStorePath(values, env);
  const store = openStoreForReading(db);
  const app = createViewerApp({ store, storeLocation: db, ...(tokenizer === undefined ? {} : { tokenizer }) });
  const viewer = {
    listen: () => app.listen({ port, host }),
    close: async () => {
      await app.close();
      store.close();
    },
  };
  const address = await listenOrExplain(viewer, { host, port });
  const url = new URL(address);
  if (url.hostname === '[::1]') url.hostname = 'localhost';
  process.stdout.write(`tokentap ui: ${url.origin}${VIEWER_PREFIX}/\n`);
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      viewer.close().then(
        () => resolve(0),
        () => resolve(1),
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PORT;
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || port > 65_535)
    throw new UsageError(`--port must be a whole number from 0 to 65535 (got ${JSON.stringify(value)})`);
  return port;
}

// loaded only when asked: the tokenizer library is large
async function loadTokenizer(where: string): Promise<ViewerTokenizer> {
  const { loadHfTokenizer, qwen3TokenizerDir } = await import('../../model-format/tokenizer/load-hf-tokenizer.js');
  try {
    return await loadHfTokenizer(where === 'qwen3' ? qwen3TokenizerDir() : where);
  } catch (error) {
    throw new UsageError(`cannot load a tokenizer from ${where}: ${(error as Error).message}`);
  }
}
