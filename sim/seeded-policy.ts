import type { SimReply } from './render-reply-text.js';
import { sampleJsonSchema } from './sample-json-schema.js';
import type { SeededRandom } from './seeded-random.js';
import { isRecord } from '../core/json/is-record.js';

const WORDS = (
  'the a model file result check value first next plan step test data answer look read write list update ' +
  'change error output input line code path run call tool function return string number query user task ' +
  'simple quick clear small large current open close start finish before after then now also only each ' +
  'found need want should could will can may this that these those it we you is are was be'
).split(' ');

export interface SeededPolicyInput {
  random: SeededRandom;
  /** Qwen3 thinks unless `chat_template_kwargs.enable_thinking` is false */
  thinking: boolean;
  /** tool definitions as sent (`{type, function: {name, parameters}}`) */
  tools: ReadonlyArray<Record<string, unknown>>;
  /** the request's tool_choice: "auto" (default with tools), "none", "required" or a named function */
  toolChoice: unknown;
}

/**
 * The reply of the seeded random policy: a few sentences of content, reasoning when thinking is on, and
 * (when tools are offered and allowed) a Hermes tool call to one of them with arguments that fit its
 * parameters schema. "auto" calls a tool half of the time, so an agent loop ends after a few turns;
 * "required" and a named tool_choice always call (the named one).
 *
 * @example
 * seededPolicyReply({ random: createSeededRandom(7), thinking: true, tools: [], toolChoice: undefined });
 * // { reasoning: 'Check the plan then ...', content: 'Next step is ...' }
 */
export function seededPolicyReply(input: SeededPolicyInput): SimReply {
  const { random } = input;
  const reply: SimReply = {};
  if (input.thinking) reply.reasoning = sentences(random, random.integer(1, 3));
  const tool = chooseTool(input);
  if (tool === null) {
    reply.content = sentences(random, random.integer(1, 4));
    return reply;
  }
  if (random.chance(0.5)) reply.content = sentences(random, 1);
  const definition = isRecord(tool.function) ? tool.function : {};
  const name = typeof definition.name === 'string' ? definition.name : 'tool';
  const argumentsValue = sampleJsonSchema(definition.parameters ?? { type: 'object' }, random);
  reply.toolCalls = [{ name, arguments: isRecord(argumentsValue) ? argumentsValue : { value: argumentsValue } }];
  return reply;
}

function chooseTool(input: SeededPolicyInput): Record<string, unknown> | null {
  const { tools, toolChoice, random } = input;
  if (tools.length === 0 || toolChoice === 'none') return null;
  if (isRecord(toolChoice) && isRecord(toolChoice.function)) {
    const wanted = toolChoice.function.name;
    return tools.find((tool) => isRecord(tool.function) && tool.function.name === wanted) ?? null;
  }
  if (toolChoice !== 'required' && !random.chance(0.5)) return null;
  return random.pick(tools);
}

function sentences(random: SeededRandom, count: number): string {
  const result: string[] = [];
  for (let index = 0; index < count; index++) {
    const words = Array.from({ length: random.integer(4, 14) }, () => random.pick(WORDS));
    const first = words[0] ?? 'ok';
    words[0] = first.charAt(0).toUpperCase() + first.slice(1);
    result.push(words.join(' ') + '.');
  }
  return result.join(' ');
}
