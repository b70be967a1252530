import { isRecord } from '../../core/json/is-record.js';

/**
 * One table maps every protocol's thinking switch to the chat template's `enable_thinking` (Qwen3 and the
 * templates that copy it); docs/thinking-switches.md shows the same table.
 *
 * | protocol  | field                              | enable_thinking |
 * |-----------|------------------------------------|-----------------|
 * | Anthropic | thinking.type enabled / adaptive   | true            |
 * | Anthropic | thinking.type disabled             | false           |
 * | Responses | reasoning.effort none / minimal    | false           |
 * | Responses | reasoning.effort low/medium/high/xhigh | true        |
 * | Chat      | reasoning_effort none / minimal    | false           |
 * | Chat      | reasoning_effort low/medium/high/xhigh | true        |
 * | any       | absent                             | not set (template default) |
 */
export type ThinkingSwitch =
  { protocol: 'anthropic'; thinking: unknown } | { protocol: 'responses'; reasoning: unknown } | { protocol: 'chat'; reasoningEffort: unknown };

const OFF_EFFORTS = new Set(['none', 'minimal']);
const ON_EFFORTS = new Set(['low', 'medium', 'high', 'xhigh', 'max']);

function fromEffort(effort: unknown): boolean | undefined {
  if (typeof effort !== 'string') return undefined;
  if (OFF_EFFORTS.has(effort)) return false;
  if (ON_EFFORTS.has(effort)) return true;
  return undefined;
}

/**
 * @example enableThinkingFor({ protocol: 'anthropic', thinking: { type: 'adaptive' } }) // true
 */
export function enableThinkingFor(source: ThinkingSwitch): boolean | undefined {
  switch (source.protocol) {
    case 'anthropic': {
      const type = isRecord(source.thinking) ? source.thinking.type : undefined;
      if (type === 'enabled' || type === 'adaptive') return true;
      if (type === 'disabled') return false;
      return undefined;
    }
    case 'responses':
      return fromEffort(isRecord(source.reasoning) ? source.reasoning.effort : undefined);
    case 'chat':
      return fromEffort(source.reasoningEffort);
  }
}

/**
 * Sets `chat_template_kwargs.enable_thinking` on a backend chat body, unless the harness set it itself
 * (an explicit template switch always wins) or the switch says nothing.
 *
 * @example applyThinkingSwitch(backendBody, enableThinkingFor({ protocol: 'chat', reasoningEffort: body.reasoning_effort }))
 */
export function applyThinkingSwitch(backendBody: Record<string, unknown>, enable: boolean | undefined): void {
  if (enable === undefined) return;
  const kwargs = isRecord(backendBody.chat_template_kwargs) ? backendBody.chat_template_kwargs : {};
  if (typeof kwargs.enable_thinking === 'boolean') return;
  backendBody.chat_template_kwargs = { ...kwargs, enable_thinking: enable };
}
