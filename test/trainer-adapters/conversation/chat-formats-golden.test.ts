import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportDataset } from '../../../export/export-dataset.js';
import { exportSamples } from '../../../export/export-samples.js';
import { loadHfTokenizer, qwen3TokenizerDir } from '../../../model-format/tokenizer/load-hf-tokenizer.js';
import { chatTemplateSpecialTokens, renderChatTemplate } from '../../../model-format/chat-template/render-chat-template.js';
import { readConversation } from '../../../trainer-adapters/conversation/read-conversation.js';
import { createTrainerAdapter, isAdapterSkip, type ExportRow, type ExportSample } from '../../../trainer-adapters/index.js';
import { expectParquetRoundTrip } from '../expect-parquet-round-trip.js';
import { expectRowMatchesColumns } from '../expect-row-matches-columns.js';
import { recordGoldenExport, type GoldenExport } from '../record-golden-export.js';

// Real tool sessions recorded through the gateway and the simulator (Qwen3 tokenizer and template; streamed and
// not; one rollout whose edited history splits it in two samples), exported by the real pipeline.
let golden: GoldenExport;
beforeAll(async () => {
  golden = await recordGoldenExport();
});
afterAll(() => golden?.close());

const ALL_STATUSES = { status: ['completed' as const, 'truncated' as const, 'failed' as const] };
/** 7 rollouts, one of them split in two samples */
const SAMPLES = 8;

function chatRows(format: string, shape?: string): Array<{ item: ExportSample; row: ExportRow }> {
  const adapter = createTrainerAdapter(format, shape === undefined ? {} : { shape });
  const items = [...exportSamples(golden.store, { strategy: 'merge', filters: ALL_STATUSES, adapter, readConversation })];
  expect(items).toHaveLength(SAMPLES);
  return items.map((item) => {
    const row = adapter.toRow(item);
    if (isAdapterSkip(row)) throw new Error(`${format} skipped ${item.sample.sessionId}: ${row.skip}`);
    return { item, row: expectRowMatchesColumns(row, adapter.columns) };
  });
}

/** The reply message the backend gave the sample's last call, as the store holds it. */
function recordedReply(item: ExportSample): {
  content: string | null;
  reasoning?: string;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
} {
  const body = golden.store.getCallBodies(item.sample.callIds.at(-1)!)?.responseBody as {
    choices: Array<{ message: ReturnType<typeof recordedReply> }>;
  };
  return body.choices[0]!.message;
}

type Message = {
  role: string;
  content?: string;
  tool_calls?: Array<{ id?: string; function: { name: string; arguments: unknown } }>;
  tool_call_id?: string;
  name?: string;
};

/** Every tool message answers a call of the assistant message before its run of tool messages, with that call's name. */
function expectToolResultsPaired(messages: Message[]): number {
  let calls: Message['tool_calls'] = [];
  let paired = 0;
  for (const message of messages) {
    if (message.role === 'assistant') calls = message.tool_calls ?? [];
    if (message.role !== 'tool') continue;
    const call = calls.find((candidate) => candidate.id === message.tool_call_id);
    expect(call, `tool result ${message.tool_call_id} answers a call`).toBeDefined();
    if (message.name !== undefined) expect(message.name).toBe(call!.function.name);
    paired += 1;
  }
  return paired;
}

describe('chat-text formats on recorded tool sessions', () => {
  it("trl-sft messages: the Qwen3 template renders each row to exactly the text of the sample's tokens", async () => {
    const tokenizer = await loadHfTokenizer(qwen3TokenizerDir());
    for (const { item, row } of chatRows('trl-sft', 'messages')) {
      const rendered = renderChatTemplate({
        template: tokenizer.chatTemplate!,
        messages: row.messages as Array<Record<string, unknown>>,
        tools: row.tools as Array<Record<string, unknown>>,
        extraContext: row.chat_template_kwargs as Record<string, unknown>,
        specialTokens: chatTemplateSpecialTokens(tokenizer),
      });
      // the template closes the last turn with "<|im_end|>\n"; the model sampled <|im_end|> and stopped
      expect(rendered).toBe(`${tokenizer.decode(Array.from(item.sample.tokens))}\n`);
    }
  });

  it('trl-sft: the final assistant message is the recorded reply, tool results name their calls', () => {
    let paired = 0;
    for (const { item, row } of chatRows('trl-sft', 'prompt-completion')) {
      const reply = recordedReply(item);
      const [completion] = row.completion as Array<Record<string, unknown>>;
      expect(completion).toEqual({ role: 'assistant', content: reply.content ?? '', reasoning_content: reply.reasoning });
      paired += expectToolResultsPaired(row.prompt as Message[]);
    }
    expect(paired).toBeGreaterThanOrEqual(SAMPLES);
  });

  it('trl-sft tokens: the sample itself', () => {
    for (const { item, row } of chatRows('trl-sft', 'tokens'))
      expect(row).toEqual({ input_ids: item.sample.tokens, completion_mask: item.sample.lossMask });
  });

  it('sft-messages: the final assistant message is the recorded reply, and tool calls keep the text the model wrote', () => {
    for (const { item, row } of chatRows('sft-messages')) {
      const messages = row.messages as Message[];
      expect(messages.at(-1)).toEqual({ role: 'assistant', content: recordedReply(item).content });
      expect(expectToolResultsPaired(messages)).toBeGreaterThanOrEqual(1);
      const firstCall = golden.store.getCallBodies(item.sample.callIds[0]!)?.responseBody as {
        choices: Array<{ message: { tool_calls: Array<{ function: { arguments: string } }> } }>;
      };
      const toolCall = messages.find((message) => message.tool_calls !== undefined)!.tool_calls![0]!;
      if (item.sample.callIds.length > 1) expect(toolCall.function.arguments).toBe(firstCall.choices[0]!.message.tool_calls[0]!.function.arguments);
    }
  });

  it('sharegpt: turns alternate asker and answerer, the call is a function_call and its result an observation, the reply last', () => {
    for (const { item, row } of chatRows('sharegpt')) {
      const turns = row.conversations as Array<{ from: string; value: string }>;
      expect(turns.map((turn, index) => ['human', 'observation'].includes(turn.from) === (index % 2 === 0))).not.toContain(false);
      const call = turns.find((turn) => turn.from === 'function_call')!;
      // the harness that edited its history dropped the reasoning it had sent back: no thought then
      expect(JSON.parse(call.value.replace(/^<think>\n[^]*?\n<\/think>\n\n/, ''))).toEqual({ name: 'calculator', arguments: { a: 17, b: 25 } });
      expect(turns[turns.indexOf(call) + 1]).toEqual({ from: 'observation', value: '42' });
      const reply = recordedReply(item);
      expect(turns.at(-1)).toEqual({ from: 'gpt', value: `<think>\n${reply.reasoning!.trim()}\n</think>\n\n${reply.content!.replace(/^\n+/, '')}` });
      expect([row.system, JSON.parse(row.tools as string)[0].name]).toEqual(['', 'calculator']);
    }
  });

  it('every chat format exports to JSONL and Parquet through exportDataset, and Parquet reads back in DuckDB value for value', async () => {
    for (const [format, shape] of [
      ['trl-sft', 'messages'],
      ['trl-sft', 'prompt-completion'],
      ['sft-messages', undefined],
      ['sharegpt', undefined],
    ] as const) {
      const name = `${golden.fixture.dir}/${format}-${shape ?? 'rows'}`;
      const base = { format, ...(shape === undefined ? {} : { shape }), filters: ALL_STATUSES };
      const { summary } = await exportDataset(golden.store, { ...base, out: `${name}.jsonl` });
      expect([summary.samples, summary.dropped]).toEqual([SAMPLES, {}]);
      const lines = readFileSync(`${name}.jsonl`, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as ExportRow);
      const adapter = createTrainerAdapter(format, shape === undefined ? {} : { shape });
      expect(lines).toEqual(chatRows(format, shape).map(({ row }) => JSON.parse(JSON.stringify(adapter.toJson?.(row) ?? row))));
      await expectParquetRoundTrip(
        adapter,
        chatRows(format, shape).map(({ row }) => row),
        `${name}.parquet`,
      );
    }
  });
});
