import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createRecordWriter } from '../../export/writers/record-writer.js';
import { createTrainerAdapter, type ExportRow } from '../../trainer-adapters/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { makeExportSample } from './make-export-sample.js';

// The loader's numpy part, run by Debian's python3 + python3-numpy; torch and verl are not installed here, so
// to_dataproto is not exercised (docs/formats.md says so).
const LOADER = fileURLToPath(new URL('../../examples/verl/load_tokentap.py', import.meta.url));
const probe = spawnSync('python3', ['-c', 'import numpy'], { encoding: 'utf8' });
const missing = probe.error !== undefined ? 'python3 is not installed' : probe.status !== 0 ? 'python3 has no numpy (install python3-numpy)' : null;

let temp: ReturnType<typeof makeTempDir> | undefined;
afterEach(() => temp?.remove());

interface Tensor {
  dtype: string;
  shape: number[];
  data: number[][];
}
interface LoadedBatch {
  tensors: Record<string, Tensor>;
  non_tensors: Record<string, unknown[]>;
}

/** Three verl rows of different prompt and response lengths: a long prompt, a long response, an ungrouped one. */
function verlRows(): ExportRow[] {
  const adapter = createTrainerAdapter('verl');
  const samples = [
    makeExportSample({ index: 0 }),
    makeExportSample(
      { index: 1, rolloutSampleIndex: 0, rolloutSampleCount: 1 },
      {
        tokens: Int32Array.of(20, 21, 22, 23),
        lossMask: Uint8Array.of(0, 1, 1, 1),
        logprobs: Float32Array.of(0, -0.1, -0.2, -0.3),
        policyVersions: [null, 'v1', 'v1', 'v1'],
        promptLength: 1,
        callIds: ['call-3'],
        reward: 0,
      },
    ),
    makeExportSample(
      { index: 2, groupKey: 'rollout-9', advantage: null },
      {
        tokens: Int32Array.of(30, 31, 32, 33, 34, 35),
        lossMask: Uint8Array.of(0, 0, 0, 0, 0, 1),
        logprobs: Float32Array.of(0, 0, 0, 0, 0, -2),
        policyVersions: [null, null, null, null, null, 'v2'],
        promptLength: 5,
        groupId: undefined,
        rolloutId: 'rollout-9',
        reward: 1,
      },
    ),
  ];
  return samples.map((sample) => adapter.toRow(sample) as ExportRow);
}

/** The rows as `tokentap export --format verl --out FILE.jsonl` writes them (the export's record writer). */
async function writeJsonl(path: string, rows: ExportRow[]): Promise<void> {
  const writer = createRecordWriter({ path, columns: createTrainerAdapter('verl').columns, metadata: {} });
  for (const row of rows) await writer.write(row);
  await writer.close();
}

function load(path: string, flags: string[] = []): { status: number | null; batch: LoadedBatch | null; stderr: string } {
  const result = spawnSync('python3', [LOADER, '--check', path, ...flags], { encoding: 'utf8' });
  return { status: result.status, batch: result.status === 0 ? (JSON.parse(result.stdout) as LoadedBatch) : null, stderr: result.stderr };
}

/** verl's agent-loop padding of one row, computed here: prompt left-padded to P, the rest right-padded to R. */
function expectedRow(row: ExportRow, width: { prompt: number; response: number }, pad: number): Record<string, number[]> {
  const prompt = Array.from(row.prompt_ids as Int32Array);
  const response = Array.from(row.response_ids as Int32Array);
  const left = width.prompt - prompt.length;
  const right = width.response - response.length;
  const attention = [...Array(left).fill(0), ...Array(prompt.length + response.length).fill(1), ...Array(right).fill(0)];
  let seen = 0;
  const rmScores = Array(width.response).fill(0);
  rmScores[response.length - 1] = Math.fround(row.reward as number);
  return {
    prompts: [...Array(left).fill(pad), ...prompt],
    responses: [...response, ...Array(right).fill(pad)],
    response_mask: [...Array.from(row.response_mask as Uint8Array), ...Array(right).fill(0)],
    input_ids: [...Array(left).fill(pad), ...prompt, ...response, ...Array(right).fill(pad)],
    attention_mask: attention,
    position_ids: attention.map((value) => Math.max((seen += value) - 1, 0)),
    rollout_log_probs: [...Array.from(row.response_logprobs as Float32Array), ...Array(right).fill(0)],
    rm_scores: rmScores,
  };
}

function expectBatch(batch: LoadedBatch, rows: ExportRow[], width: { prompt: number; response: number }, pad: number): void {
  const expected = rows.map((row) => expectedRow(row, width, pad));
  const total = width.prompt + width.response;
  const shapes: Record<string, number[]> = {
    prompts: [3, width.prompt],
    responses: [3, width.response],
    response_mask: [3, width.response],
    input_ids: [3, total],
    attention_mask: [3, total],
    position_ids: [3, total],
    rollout_log_probs: [3, width.response],
    rm_scores: [3, width.response],
  };
  expect(Object.keys(batch.tensors)).toEqual(Object.keys(shapes));
  for (const [name, shape] of Object.entries(shapes)) {
    expect(batch.tensors[name]!.shape, name).toEqual(shape);
    expect(batch.tensors[name]!.dtype, name).toBe(name === 'rollout_log_probs' || name === 'rm_scores' ? 'float32' : 'int64');
    expect(batch.tensors[name]!.data, name).toEqual(expected.map((row) => row[name]));
  }
}

describe.skipIf(missing !== null)(`examples/verl/load_tokentap.py${missing === null ? '' : ` (skipped: ${missing})`}`, () => {
  it('pads verl rows as the agent loop does: prompts left, responses right, reward on the last response token', async () => {
    temp = makeTempDir();
    const rows = verlRows();
    await writeJsonl(temp.file('verl.jsonl'), rows);
    const { status, batch, stderr } = load(temp.file('verl.jsonl'));
    expect(status, stderr).toBe(0);
    expectBatch(batch!, rows, { prompt: 5, response: 5 }, 0);
    expect(batch!.non_tensors).toEqual({
      uid: ['group-1', 'group-1', 'rollout-9'],
      __num_turns__: [2, 1, 2],
      advantage: [1.25, 1.25, null],
      loss_weight: [0.5, 0.5, 0.5],
      rollout_id: ['rollout-1', 'rollout-1', 'rollout-9'],
      session_id: ['session-1', 'session-1', 'session-1'],
      extra_info: rows.map((row) => row.extra_info),
    });
  });

  it('pads to the lengths and pad id asked for', async () => {
    temp = makeTempDir();
    const rows = verlRows();
    await writeJsonl(temp.file('verl.jsonl'), rows);
    const { status, batch, stderr } = load(temp.file('verl.jsonl'), ['--prompt-length', '7', '--response-length', '6', '--pad-token-id', '151643']);
    expect(status, stderr).toBe(0);
    expectBatch(batch!, rows, { prompt: 7, response: 6 }, 151643);
  });

  it('refuses a row longer than the length asked for rather than cutting trained tokens', async () => {
    temp = makeTempDir();
    await writeJsonl(temp.file('verl.jsonl'), verlRows());
    const { status, stderr } = load(temp.file('verl.jsonl'), ['--response-length', '4']);
    expect(status).not.toBe(0);
    expect(stderr).toMatch(/a row has 5 response_ids, more than the 4 asked for/);
  });
});
