#!/usr/bin/env node
import { reportFailure } from './report-failure.js';
import { UsageError } from './usage-error.js';

const HELP = `Usage: tokentap <command> [options]

Commands:
  serve         run the recording gateway in front of an inference backend
  sim-backend   run the simulated vLLM-compatible backend (real Qwen3 tokenizer and template)
  sessions      list recorded sessions
  show          show the calls of one session
  diagnose      explain where and why a session's calls do not merge into one sample
  export        write training samples as a dataset for a trainer (verl, slime, TRL, ...; JSONL or Parquet)
  stats         the shape of the dataset an export would write (lengths, rewards, drift)
  ui            the trajectory viewer in the browser: sessions, samples token by token, groups (read-only)
  backends      a running gateway's backend replicas (state, load, token ids); drain and undrain one
  reward        store a reward for a recorded session (for verifiers that run after the rollouts)
  migrate       bring a database to this version's schema; --from FILE --to URL copies it into PostgreSQL

Options:
  -v, --version   print tokentap's version
  -h, --help      this help

Run tokentap <command> --help for a command's options.
Exit codes: 0 success, 1 failure, 2 bad usage or configuration.
`;

// each command is loaded only when run: `tokentap show` must not pay for the simulator's tokenizer imports
const COMMANDS: Record<string, (args: string[]) => Promise<number>> = {
  serve: async (args) => (await import('./commands/serve.js')).runServe(args, process.env),
  'sim-backend': async (args) => (await import('../sim/cli.js')).runSimBackend(args),
  sessions: async (args) => (await import('./commands/sessions.js')).runSessions(args, process.env),
  show: async (args) => (await import('./commands/show.js')).runShow(args, process.env),
  diagnose: async (args) => (await import('./commands/diagnose.js')).runDiagnose(args, process.env),
  export: async (args) => (await import('./commands/export.js')).runExport(args, process.env),
  stats: async (args) => (await import('./commands/stats.js')).runStats(args, process.env),
  ui: async (args) => (await import('./commands/ui.js')).runUi(args, process.env),
  reward: async (args) => (await import('./commands/reward.js')).runReward(args, process.env),
  migrate: async (args) => (await import('./commands/migrate.js')).runMigrate(args, process.env),
  backends: async (args) => (await import('./commands/backends.js')).runBackends(args, process.env),
};

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP);
    return command === undefined ? 2 : 0;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`tokentap ${(await import('../export/export-provenance.js')).tokentapVersion()}\n`);
    return 0;
  }
  const run = COMMANDS[command];
  if (run === undefined) throw new UsageError(`unknown command ${JSON.stringify(command)}\n\n${HELP}`);
  return run(args);
}

/**
 * A reader that goes away (`tokentap sessions --json | head -1`, a closed terminal) ends what is written, not the
 * command: without a listener Node throws the stream's EPIPE as an uncaught error with its stack. The command runs
 * on to its own exit code (0, or 2 for a mistake it was reporting), so an export still commits its file.
 */
function ignoreGoneReader(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EPIPE') throw error;
}
process.stdout.on('error', ignoreGoneReader);
process.stderr.on('error', ignoreGoneReader);

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = reportFailure(error, process.stderr);
  },
);
