#!/usr/bin/env node
import { runServe, SERVE_HELP } from './commands/serve.js';
import { runSessions, SESSIONS_HELP } from './commands/sessions.js';
import { runShow, SHOW_HELP } from './commands/show.js';
import { runSimBackend } from '../sim/cli.js';
import { UsageError } from './usage-error.js';

const HELP = `Usage: tokentap <command> [options]

Commands:
  serve         run the recording gateway in front of an inference backend
  sim-backend   run the simulated vLLM-compatible backend (real Qwen3 tokenizer and template)
  sessions      list recorded sessions
  show          show the calls of one session

Run tokentap <command> --help for a command's options.
Exit codes: 0 success, 1 failure, 2 bad usage or configuration.
`;

const COMMANDS: Record<string, (args: string[]) => number | Promise<number>> = {
  serve: (args) => runServe(args, process.env),
  'sim-backend': (args) => runSimBackend(args),
  sessions: (args) => runSessions(args, process.env),
  show: (args) => runShow(args, process.env),
};

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP);
    return command === undefined ? 2 : 0;
  }
  const run = COMMANDS[command];
  if (run === undefined) throw new UsageError(`unknown command ${JSON.stringify(command)}\n\n${HELP}`);
  return run(args);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`tokentap: ${(error as Error).message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`tokentap: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);

export { SERVE_HELP, SESSIONS_HELP, SHOW_HELP };
