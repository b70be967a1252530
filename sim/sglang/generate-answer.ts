import { streamGroups } from '../stream-groups.js';
import type { StreamEvent } from '../write-response.js';
import { generateMetaInfo } from './generate-meta-info.js';
import type { SglangGeneration } from './sglang-generation.js';
import type { SglangLogprobSource } from './sglang-logprobs.js';

/** Everything a `/generate` answer is built from. */
export interface GenerateAnswer {
  id: string;
  result: SglangGeneration;
  promptTokens: number;
  weightVersion: string;
  logprobs: SglangLogprobSource | null;
  cachedTokens: number;
  /** Date.now() when the request arrived */
  startedAt: number;
  /** `--incremental-streaming-output` */
  incremental: boolean;
  streamInterval: number;
}

/**
 * The non-streamed `/generate` body: `{text, output_ids, meta_info}`, `output_ids` through the stop (the matched EOS
 * or stop token included, as in the captures and SGLang's docs), `text` without it.
 *
 * @example
 * JSON.stringify(generateBody(answer)); // '{"text":" Paris.","output_ids":[12095,13,151643],"meta_info":{…}}'
 */
export function generateBody(answer: GenerateAnswer): Record<string, unknown> {
  const { result } = answer;
  return {
    text: result.text,
    output_ids: result.outputIds,
    meta_info: generateMetaInfo({
      ...metaHead(answer),
      finishReason: result.finishReason,
      outputIds: result.outputIds,
      logprobsFrom: 0,
      e2eLatency: seconds(Date.now() - answer.startedAt),
      responseSentToClientTs: Date.now() / 1000,
    }),
  };
}

/**
 * A streamed `/generate`: one `data: {text, output_ids, meta_info}` frame per stream group (`--stream-interval`: the
 * first token alone, then N at a time, as the scheduler's `len(output_ids) % stream_interval == 1` gate), then
 * `data: [DONE]`. By default every frame repeats everything so far: `text`, `output_ids`, `output_token_logprobs`
 * and `output_top_logprobs` are cumulative (output_processor.py hands out `state.output_ids` whole). With
 * `--incremental-streaming-output` those four carry only this frame's part (`slice_streaming_output_meta_info`),
 * while `completion_tokens`, `output_token_logprobs_length` and `input_token_logprobs` stay totals. The first frame
 * carries `response_sent_to_client_ts`, the last `finish_reason` and `e2e_latency`.
 *
 * @example
 * await writeEventStream(exchange, generateStreamEvents(answer), options);
 */
export function* generateStreamEvents(answer: GenerateAnswer): Generator<StreamEvent> {
  const { result } = answer;
  const count = result.outputIds.length;
  for (const group of streamGroups(count, answer.streamInterval)) {
    const last = group.end === count;
    const from = answer.incremental ? group.start : 0;
    const frame = {
      text: result.tokenTexts.slice(from, group.end).join(''),
      output_ids: result.outputIds.slice(from, group.end),
      meta_info: generateMetaInfo({
        ...metaHead(answer),
        finishReason: last ? result.finishReason : null,
        outputIds: result.outputIds.slice(0, group.end),
        logprobsFrom: from,
        e2eLatency: last ? seconds(Date.now() - answer.startedAt) : null,
        responseSentToClientTs: group.start === 0 ? Date.now() / 1000 : null,
      }),
    };
    yield { data: JSON.stringify(frame), tokens: group.end - group.start };
  }
  yield { data: '[DONE]', tokens: 0 };
}

// a Python float: never printed as a whole number
function seconds(milliseconds: number): number {
  return Math.max(milliseconds, 0.013) / 1000;
}

function metaHead(answer: GenerateAnswer) {
  return {
    id: answer.id,
    promptTokens: answer.promptTokens,
    weightVersion: answer.weightVersion,
    logprobs: answer.logprobs,
    reasoningTokens: 0,
    cachedTokens: answer.cachedTokens,
  };
}
