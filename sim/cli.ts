import { readFile } from 'node:fs/promises';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { z } from 'zod';
import { createSimBackend } from './create-sim-backend.js';
import type { SimBackendOptions } from './sim-options.js';
import type { SimScript } from './sim-script.js';

const USAGE = `Usage: tokentap sim-backend [options]

A simulated vLLM server (OpenAI-compatible) with the real Qwen3 tokenizer and chat template,
or an SGLang server (--flavour sglang: native /generate and SGLang's OpenAI-compatible routes).

Options:
  --flavour F              vllm | sglang (default vllm)
  --incremental-streaming-output
                           SGLang: streamed /generate frames carry only what is new (SGLang's flag)
  --weight-version V       SGLang: the weight version answers report (default "default")
  --port N                 port to listen on (default 8000)
  --host HOST              address to bind (default 127.0.0.1)
  --script FILE            JSON script of replies and faults (see docs/sim.md)
  --seed N                 seed of the random policy and the logprobs (default 0)
  --fast                   benchmark mode: canned pre-tokenized replies, no templating
  --reasoning-field F      reasoning | reasoning_content | both (default reasoning)
  --error-shape S          nested | flat (default nested, vLLM >= 0.10.1)
  --tokens-per-second N    pace streams (default unpaced)
  --stream-interval N      tokens per streamed chunk after the first, as vLLM's flag (default 1)
  --model-name NAME        served model name (default Qwen/Qwen3-8B)
  --max-model-len N        context window (default 40960)
  -h, --help               show this text
`;

const flagsSchema = z.strictObject({
  flavour: z.enum(['vllm', 'sglang']).default('vllm'),
  'incremental-streaming-output': z.boolean().default(false),
  'weight-version': z.string().optional(),
  port: z.coerce.number().int().min(0).max(65535).default(8000),
  host: z.string().default('127.0.0.1'),
  script: z.string().optional(),
  seed: z.coerce.number().int().default(0),
  fast: z.boolean().default(false),
  'reasoning-field': z.enum(['reasoning', 'reasoning_content', 'both']).default('reasoning'),
  'error-shape': z.enum(['nested', 'flat']).default('nested'),
  'tokens-per-second': z.coerce.number().positive().optional(),
  'stream-interval': z.coerce.number().int().min(1).max(1_000_000).default(1),
  'model-name': z.string().optional(),
  'max-model-len': z.coerce.number().int().positive().optional(),
  help: z.boolean().default(false),
});

/**
 * `tokentap sim-backend`: parses the flags, listens, logs with pino, and runs until SIGINT/SIGTERM.
 * Resolves to the exit code (2 for bad flags or a bad script).
 *
 * @example
 * process.exitCode = await runSimBackend(['--port', '8000', '--script', 'replies.json']);
 */
export async function runSimBackend(args: string[]): Promise<number> {
  let flags: z.output<typeof flagsSchema>;
  let script: SimScript | undefined;
  try {
    const { values } = parseArgs({ args, options: cliOptions(), strict: true, allowPositionals: false });
    flags = flagsSchema.parse(values);
    script = flags.script === undefined ? undefined : (JSON.parse(await readFile(flags.script, 'utf8')) as SimScript);
  } catch (error) {
    const message = error instanceof z.ZodError ? z.prettifyError(error) : error instanceof Error ? error.message : String(error);
    process.stderr.write(`tokentap sim-backend: ${message}\n\n${USAGE}`);
    return 2;
  }
  if (flags.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const logger = pino({ level: 'info' });
  const options: SimBackendOptions = {
    flavour: flags.flavour,
    incrementalStreamingOutput: flags['incremental-streaming-output'],
    weightVersion: flags['weight-version'],
    script,
    seed: flags.seed,
    fast: flags.fast,
    reasoningField: flags['reasoning-field'],
    errorShape: flags['error-shape'],
    tokensPerSecond: flags['tokens-per-second'],
    streamInterval: flags['stream-interval'],
    modelName: flags['model-name'],
    maxModelLen: flags['max-model-len'],
    logger,
  };
  try {
    const sim = await createSimBackend(options);
    const url = await sim.listen({ port: flags.port, host: flags.host });
    logger.info(
      { url, model: options.modelName ?? 'Qwen/Qwen3-8B', fast: flags.fast, flavour: flags.flavour },
      `simulated ${flavourName(flags.flavour)} backend listening`,
    );
    await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
    await sim.close();
    return 0;
  } catch (error) {
    logger.error({ err: error }, 'simulated vLLM backend failed');
    return error instanceof z.ZodError ? 2 : 1;
  }
}

function flavourName(flavour: 'vllm' | 'sglang'): string {
  return flavour === 'sglang' ? 'SGLang' : 'vLLM';
}

function cliOptions() {
  return {
    flavour: { type: 'string' },
    'incremental-streaming-output': { type: 'boolean' },
    'weight-version': { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    script: { type: 'string' },
    seed: { type: 'string' },
    fast: { type: 'boolean' },
    'reasoning-field': { type: 'string' },
    'error-shape': { type: 'string' },
    'tokens-per-second': { type: 'string' },
    'stream-interval': { type: 'string' },
    'model-name': { type: 'string' },
    'max-model-len': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  } as const;
}
