import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconstructSessionReport } from '../../reconstruct/reconstruct-session.js';
import { verifySample } from '../../reconstruct/verify-sample.js';
import { createTrainerAdapter, TRAINER_FORMATS, type ExportRow } from '../../trainer-adapters/index.js';
import { expectParquetRoundTrip } from './expect-parquet-round-trip.js';
import { expectRowMatchesColumns } from './expect-row-matches-columns.js';
import { exportRows, recordGoldenExport, type GoldenExport, type GoldenRow } from './record-golden-export.js';

// Real multi-turn tool sessions recorded through the gateway and the simulator (Qwen3 tokenizer and template),
// exported by the real pipeline (exportSamples, merge, GRPO) and turned into each format's rows.
let golden: GoldenExport;
beforeAll(async () => {
  golden = await recordGoldenExport();
});
afterAll(() => golden?.close());

/** Samples come grouped (a group key never comes back after another), verified, with hand-computed advantages. */
function expectExportInvariants(rows: GoldenRow[], expectedRollouts: number): void {
  const finished: string[] = [];
  for (const { item } of rows) {
    if (item.groupKey !== finished.at(-1)) {
      expect(finished, `group ${item.groupKey} comes back after another group`).not.toContain(item.groupKey);
      finished.push(item.groupKey);
    }
    const { sample } = item;
    const rollout = golden.fixture.rollouts.find((candidate) => candidate.sessionId === sample.sessionId)!;
    expect(item.groupKey).toBe(rollout.groupId ?? rollout.sessionId);
    expect(item.rolloutSampleCount).toBe(rollout.mergedSamples);
    const expected = golden.advantages.get(sample.sessionId)!;
    if (expected === null) expect(item.advantage).toBeNull();
    else expect(item.advantage).toBeCloseTo(expected, 9);
    expect(verifySample(sample, golden.store.listCalls(sample.sessionId))).toEqual({ ok: true });
    // the pipeline's sample is the merge reconstruction's sample of that session
    const reconstructed = reconstructSessionReport(golden.store, sample.sessionId, { strategy: 'merge' }).samples[item.rolloutSampleIndex]!;
    expect(sample.tokens).toEqual(reconstructed.tokens);
  }
  expect(new Set(rows.map(({ item }) => item.sample.sessionId)).size).toBe(expectedRollouts);
}

/** Mask and logprobs align with the tokens; logprobs are 0 wherever the mask is 0; something is trained. */
function expectAligned(tokens: ArrayLike<number>, mask: ArrayLike<number>, logprobs: ArrayLike<number>): void {
  expect([mask.length, logprobs.length]).toEqual([tokens.length, tokens.length]);
  for (let position = 0; position < mask.length; position++) if (mask[position] === 0) expect(logprobs[position]).toBe(0);
  expect(Array.from(mask)).toContain(1);
}

function concat(first: Int32Array, second: Int32Array): Int32Array {
  return Int32Array.of(...first, ...second);
}

/** The rows of a format, each checked against its columns, with the export invariants checked. */
function formatRows(format: string, shape: string | undefined, expectedRollouts: number, options: { includeFailed?: boolean } = {}): GoldenRow[] {
  const adapter = createTrainerAdapter(format, shape === undefined ? {} : { shape });
  const rows = exportRows(golden, adapter, options);
  for (const { row } of rows) expectRowMatchesColumns(row, adapter.columns);
  expectExportInvariants(rows, expectedRollouts);
  return rows;
}

const REWARDED_ROLLOUTS = 6;
const TOKEN_FORMATS = ['jsonl', 'parquet', 'verl', 'slime', 'openrlhf', 'trl-grpo', 'tinker', 'skyrl'];

describe('token-level formats on recorded tool sessions', () => {
  it('generic: every sample (the failed one too) with its tokens, mask, logprobs, reward and advantage', () => {
    const rows = formatRows('jsonl', undefined, REWARDED_ROLLOUTS + 1, { includeFailed: true });
    expect(rows).toHaveLength(8);
    for (const { item, row } of rows) {
      const { sample } = item;
      expect(row).toMatchObject({
        session_id: sample.sessionId,
        tokens: sample.tokens,
        loss_mask: sample.lossMask,
        logprobs: sample.logprobs,
        prompt_length: sample.promptLength,
      });
      expect([row.reward, row.advantage, row.group_id, row.status]).toEqual([
        sample.reward ?? null,
        item.advantage,
        sample.groupId ?? null,
        sample.status,
      ]);
      expectAligned(row.tokens as Int32Array, row.loss_mask as Uint8Array, row.logprobs as Float32Array);
    }
    expect(rows.filter(({ row }) => row.reward === null).map(({ row }) => row.status)).toEqual(['failed']);
  });

  it('verl: prompt_ids + response_ids are the sample, the response mask and logprobs its response part, uid the group', () => {
    for (const { item, row } of formatRows('verl', undefined, REWARDED_ROLLOUTS)) {
      const { sample } = item;
      expect(concat(row.prompt_ids as Int32Array, row.response_ids as Int32Array)).toEqual(sample.tokens);
      expect((row.prompt_ids as Int32Array).length).toBe(sample.promptLength);
      expect(sample.lossMask.subarray(0, sample.promptLength).every((value) => value === 0)).toBe(true);
      expect(row.response_mask).toEqual(sample.lossMask.slice(sample.promptLength));
      expect(row.response_logprobs).toEqual(sample.logprobs.slice(sample.promptLength));
      expectAligned(row.response_ids as Int32Array, row.response_mask as Uint8Array, row.response_logprobs as Float32Array);
      expect([row.uid, row.reward, row.advantage, row.num_turns]).toEqual([item.groupKey, sample.reward, item.advantage, sample.callIds.length]);
    }
  });

  it('slime: whole tokens, response-only mask and logprobs of response_length, siblings sharing rollout_id', () => {
    const rows = formatRows('slime', undefined, REWARDED_ROLLOUTS);
    for (const [position, { item, row }] of rows.entries()) {
      const { sample } = item;
      expect(row.tokens).toEqual(sample.tokens);
      expect(row.response_length).toBe(sample.tokens.length - sample.promptLength);
      expect((row.loss_mask as Uint8Array).length).toBe(row.response_length);
      expectAligned((row.tokens as Int32Array).subarray(sample.promptLength), row.loss_mask as Uint8Array, row.rollout_log_probs as Float32Array);
      expect([row.index, row.status, row.reward]).toEqual([position, 'completed', sample.reward]);
    }
    const rolloutIds = new Map<string, Set<unknown>>();
    for (const { item, row } of rows) rolloutIds.set(item.sample.sessionId, (rolloutIds.get(item.sample.sessionId) ?? new Set()).add(row.rollout_id));
    expect([...rolloutIds.values()].map((ids) => [...ids])).toEqual([[0], [1], [2], [3], [4], [5]]);
  });

  it('openrlhf: observation_tokens are the sample and its action_ranges rebuild its loss mask', () => {
    for (const { item, row } of formatRows('openrlhf', undefined, REWARDED_ROLLOUTS)) {
      const { sample } = item;
      expect(row.observation_tokens).toEqual(sample.tokens);
      const mask = new Uint8Array(sample.tokens.length);
      for (const [start, end] of row.action_ranges as Array<[number, number]>) mask.fill(1, start, end);
      expect(mask).toEqual(sample.lossMask);
      expectAligned(row.observation_tokens as Int32Array, mask, row.rollout_log_probs as Float32Array);
      expect([row.reward, row.scores, row.truncated]).toEqual([sample.reward, sample.reward, false]);
    }
  });

  it('trl-grpo: prompt_ids + completion_ids are the sample, env_mask its response mask, group_id contiguous', () => {
    for (const { item, row } of formatRows('trl-grpo', undefined, REWARDED_ROLLOUTS)) {
      const { sample } = item;
      expect(concat(row.prompt_ids as Int32Array, row.completion_ids as Int32Array)).toEqual(sample.tokens);
      expect(row.env_mask).toEqual(sample.lossMask.slice(sample.promptLength));
      expectAligned(row.completion_ids as Int32Array, row.env_mask as Uint8Array, row.logprobs as Float32Array);
      expect([row.group_id, row.reward, row.advantage]).toEqual([item.groupKey, sample.reward, item.advantage]);
    }
  });

  it('tinker rl: every loss input has N-1 entries, shifted by one, the advantage only on sampled targets', () => {
    const adapter = createTrainerAdapter('tinker');
    for (const { item, row } of formatRows('tinker', 'rl', REWARDED_ROLLOUTS)) {
      const { sample } = item;
      const targets = sample.lossMask.subarray(1);
      expect(row.model_input_tokens).toEqual(sample.tokens.slice(0, -1));
      expect(row.target_tokens).toEqual(sample.tokens.slice(1));
      expect(row.logprobs).toEqual(sample.logprobs.slice(1));
      expectAligned(row.target_tokens as Int32Array, targets, row.logprobs as Float32Array);
      expect(row.advantages).toEqual(Float32Array.from(targets, (mask) => (mask === 1 ? item.advantage! : 0)));
      const datum = JSON.parse(JSON.stringify(adapter.toJson!(row))) as { loss_fn_inputs: Record<string, { shape: number[] }> };
      expect(Object.keys(datum.loss_fn_inputs)).toEqual(['target_tokens', 'logprobs', 'advantages']);
      for (const input of Object.values(datum.loss_fn_inputs)) expect(input.shape).toEqual([sample.tokens.length - 1]);
    }
  });

  it('tinker sft: weights are the shifted loss mask', () => {
    for (const { item, row } of formatRows('tinker', 'sft', REWARDED_ROLLOUTS)) {
      expect(row.weights).toEqual(Float32Array.from(item.sample.lossMask.subarray(1)));
      expect((row.model_input_tokens as Int32Array).length).toBe(item.sample.tokens.length - 1);
    }
  });

  it('skyrl generator: response-aligned masks, trajectory ids per group, is_last_step at each rollout boundary', () => {
    const rows = formatRows('skyrl', 'generator', REWARDED_ROLLOUTS);
    const repetitions = new Map<string, string[]>();
    for (const [position, { item, row }] of rows.entries()) {
      const { sample } = item;
      expect(concat(row.prompt_token_ids as Int32Array, row.response_ids as Int32Array)).toEqual(sample.tokens);
      expect(row.loss_masks).toEqual(sample.lossMask.slice(sample.promptLength));
      expectAligned(row.response_ids as Int32Array, row.loss_masks as Uint8Array, row.rollout_logprobs as Float32Array);
      expect(row.is_last_step).toBe(rows[position + 1]?.item.sample.sessionId !== sample.sessionId);
      const sessions = repetitions.get(item.groupKey) ?? [];
      if (!sessions.includes(sample.sessionId)) sessions.push(sample.sessionId);
      repetitions.set(item.groupKey, sessions);
      expect([row.trajectory_instance_id, row.trajectory_repetition_id, row.stop_reasons]).toEqual([
        item.groupKey,
        sessions.indexOf(sample.sessionId),
        'stop',
      ]);
    }
    expect(rows.filter(({ row }) => row.is_last_step === false)).toHaveLength(1);
  });

  it('skyrl sft: exactly input_ids and the full-length loss mask of each sample', () => {
    for (const { item, row } of formatRows('skyrl', 'sft', REWARDED_ROLLOUTS)) {
      expect(row).toEqual({ input_ids: item.sample.tokens, loss_mask: item.sample.lossMask } satisfies ExportRow);
    }
  });

  it('every format and shape written to Parquet reads back in DuckDB value for value, with list<int32>/list<uint8>/list<float> types', async () => {
    const formats = TRAINER_FORMATS.filter((entry) => TOKEN_FORMATS.includes(entry.format));
    for (const entry of formats) {
      for (const shape of entry.shapes ?? [undefined]) {
        const adapter = createTrainerAdapter(entry.format, shape === undefined ? {} : { shape });
        const rows = exportRows(golden, adapter, { includeFailed: !adapter.needs.reward }).map(({ row }) => row);
        expect(rows.length).toBeGreaterThanOrEqual(7);
        await expectParquetRoundTrip(adapter, rows, `${golden.fixture.dir}/${entry.format}-${shape ?? 'rows'}.parquet`);
      }
    }
  });
});
