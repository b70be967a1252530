import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { normalizeChatMessages } from '../../../model-format/chat-template/normalize-chat-messages.js';
import { renderChatTemplate } from '../../../model-format/chat-template/render-chat-template.js';
import { renderDeepSeekV32Chat } from '../../../model-format/families/deepseek-v3/render-deepseek-v32-chat.js';
import { resolveModelFamily } from '../../../model-format/families/model-families.js';

// Every expected prompt below was traced by hand from DeepSeek's V3.2 encoder as vLLM runs it, no Python was run:
// vllm/tokenizers/deepseek_v32_encoding.py (encode_messages, render_message, render_tools, encode_arguments_to_dsml;
// read at 026ddf88) called by vllm/tokenizers/deepseek_v32.py apply_chat_template (thinking from `thinking` or
// `enable_thinking`, the tools as a first system message of their own), on the messages vLLM's chat_utils parsed
// (content parts joined with "\n", arguments parsed to objects).
const BOS = '<｜begin▁of▁sentence｜>';
const EOS = '<｜end▁of▁sentence｜>';
const D = '｜DSML｜';
const LS_TOOL = {
  type: 'function',
  function: { name: 'ls', description: 'List a folder', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
};
const call = (id: string, name: string, args: unknown) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });
const param = (key: string, isString: boolean, value: string) => `<${D}parameter name="${key}" string="${isString}">${value}</${D}parameter>`;
const invoke = (name: string, ...parameters: string[]) => `<${D}invoke name="${name}">\n${parameters.join('\n')}\n</${D}invoke>`;
const calls = (...invokes: string[]) => `\n\n<${D}function_calls>\n${invokes.join('\n')}\n</${D}function_calls>`;

// two parallel calls (string and non-string values), their results, an answer, and a new user turn
const LOOP = [
  { role: 'user', content: 'Read a.ts and grep it' },
  {
    role: 'assistant',
    content: 'Reading.',
    tool_calls: [
      call('c1', 'read_file', { path: 'a.ts' }),
      call('c2', 'grep', { pattern: 'x "y"', max: 3, flags: ['i'], options: { deep: true }, since: null }),
    ],
  },
  { role: 'tool', tool_call_id: 'c1', content: 'export {}' },
  { role: 'tool', tool_call_id: 'c2', content: 'no match' },
  { role: 'assistant', content: 'a.ts exports nothing.' },
  { role: 'user', content: 'Thanks' },
];
const LOOP_PROMPT =
  `${BOS}<｜User｜>Read a.ts and grep it<｜Assistant｜></think>Reading.` +
  calls(
    invoke('read_file', param('path', true, 'a.ts')),
    invoke(
      'grep',
      param('pattern', true, 'x "y"'),
      param('max', false, '3'),
      param('flags', false, '["i"]'),
      param('options', false, '{"deep": true}'),
      param('since', false, 'null'),
    ),
  ) +
  `${EOS}\n\n<function_results>\n<result>export {}</result>\n<result>no match</result>\n</function_results>\n\n</think>` +
  `a.ts exports nothing.${EOS}<｜User｜>Thanks<｜Assistant｜></think>`;

// thinking on: the earlier turn's reasoning is dropped, the current turn's kept before </think>
const THINKING = [
  { role: 'user', content: 'Q1' },
  { role: 'assistant', reasoning_content: 'old thoughts', content: 'A1' },
  { role: 'user', content: 'Q2' },
  { role: 'assistant', reasoning_content: 'List it.', content: '', tool_calls: [call('c1', 'ls', { path: '.' })] },
  { role: 'tool', tool_call_id: 'c1', content: 'a.ts' },
];
const THINKING_PROMPT =
  `${BOS}<｜User｜>Q1<｜Assistant｜></think>A1${EOS}<｜User｜>Q2<｜Assistant｜><think>List it.</think>` +
  calls(invoke('ls', param('path', true, '.'))) +
  `${EOS}\n\n<function_results>\n<result>a.ts</result>\n</function_results>\n\n<think>`;

describe("DeepSeek V3.2's prompt (the family's renderer, DeepSeek's encoder as vLLM runs it)", () => {
  it('a user turn: <think> opens it with thinking on (`thinking` or `enable_thinking`), </think> closes it off', () => {
    const hi = [{ role: 'user', content: 'Hi' }];
    expect(renderDeepSeekV32Chat(hi, null, {})).toBe(`${BOS}<｜User｜>Hi<｜Assistant｜></think>`);
    expect(renderDeepSeekV32Chat(hi, null, { templateKwargs: { thinking: true } })).toBe(`${BOS}<｜User｜>Hi<｜Assistant｜><think>`);
    expect(renderDeepSeekV32Chat(hi, null, { templateKwargs: { enable_thinking: true } })).toBe(`${BOS}<｜User｜>Hi<｜Assistant｜><think>`);
    // nothing is added for a generation prompt: the user turn opens the assistant's
    expect(renderDeepSeekV32Chat(hi, null, { addGenerationPrompt: false })).toBe(renderDeepSeekV32Chat(hi, null, {}));
    // content parts joined with "\n", as vLLM's chat code joins them
    const parts = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
    ];
    expect(renderDeepSeekV32Chat(parts, null, {})).toBe(`${BOS}<｜User｜>a\nb<｜Assistant｜></think>`);
  });

  it('tools: their own system message first (json.dumps of each function, null description kept), then the system prompt', () => {
    const messages = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'List src.' },
    ];
    const bare = { type: 'function', function: { name: 'pwd' } };
    expect(renderDeepSeekV32Chat(messages, [LS_TOOL, bare], {})).toBe(
      `${BOS}\n\n## Tools
You have access to a set of tools you can use to answer the user's question.
You can invoke functions by writing a "<${D}function_calls>" block like the following as part of your reply to the user:
<${D}function_calls>
<${D}invoke name="$FUNCTION_NAME">
<${D}parameter name="$PARAMETER_NAME" string="true|false">$PARAMETER_VALUE</${D}parameter>
...
</${D}invoke>
<${D}invoke name="$FUNCTION_NAME2">
...
</${D}invoke>
</${D}function_calls>
String and scalar parameters should be specified as is without any escaping or quotes, while lists and objects should use JSON format. The "string" attribute should be set to "true" for string type parameters and "false" for other types (numbers, booleans, arrays, objects).
If the thinking_mode is enabled, then after function results you should strongly consider outputting a thinking block. Here is an example:
<${D}function_calls>
...
</${D}function_calls>
<function_results>
...
</function_results>
<think>...thinking about results</think>
Here are the functions available in JSONSchema format:
<functions>
{"name": "ls", "description": "List a folder", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}
{"name": "pwd", "description": null, "parameters": null}
</functions>
You are terse.<｜User｜>List src.<｜Assistant｜></think>`,
    );
    // no tools: no tools section, the system prompt right after BOS
    expect(renderDeepSeekV32Chat(messages, [], {})).toBe(`${BOS}You are terse.<｜User｜>List src.<｜Assistant｜></think>`);
  });

  it('a tool loop, thinking off: parallel calls as DSML (strings as they are, other values json.dumps), results in one block', () => {
    expect(renderDeepSeekV32Chat(LOOP, null, {})).toBe(LOOP_PROMPT);
    // arguments that are an object already (not JSON text) render the same; no arguments: an empty parameter list
    const objects = LOOP.map((message) =>
      message.tool_calls === undefined
        ? message
        : {
            ...message,
            tool_calls: message.tool_calls.map((c) => ({ ...c, function: { ...c.function, arguments: JSON.parse(c.function.arguments) } })),
          },
    );
    expect(renderDeepSeekV32Chat(objects, null, {})).toBe(LOOP_PROMPT);
    const none = [
      { role: 'user', content: 'Where?' },
      { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'pwd', arguments: '' } }] },
    ];
    expect(renderDeepSeekV32Chat(none, null, {})).toBe(
      `${BOS}<｜User｜>Where?<｜Assistant｜></think>${calls(`<${D}invoke name="pwd">\n\n</${D}invoke>`)}${EOS}`,
    );
  });

  it('thinking on: reasoning kept after the last user turn and dropped before it; the last results open <think>', () => {
    expect(renderDeepSeekV32Chat(THINKING, null, { templateKwargs: { thinking: true } })).toBe(THINKING_PROMPT);
    // a call without reasoning after the last user turn: an empty reasoning, then </think>
    const bare = THINKING.map((message, index) => (index === 3 ? { ...message, reasoning_content: undefined } : message));
    expect(renderDeepSeekV32Chat(bare, null, { templateKwargs: { thinking: true } })).toBe(
      THINKING_PROMPT.replace('<think>List it.</think>', '<think></think>'),
    );
    // thinking off: no reasoning anywhere, every turn closed by </think>
    expect(renderDeepSeekV32Chat(THINKING, null, {})).toBe(
      `${BOS}<｜User｜>Q1<｜Assistant｜></think>A1${EOS}<｜User｜>Q2<｜Assistant｜></think>` +
        calls(invoke('ls', param('path', true, '.'))) +
        `${EOS}\n\n<function_results>\n<result>a.ts</result>\n</function_results>\n\n</think>`,
    );
  });

  it('a developer message is a user turn that quotes it; an empty one is refused', () => {
    const messages = [
      { role: 'developer', content: 'Be brief.' },
      { role: 'assistant', content: 'OK.' },
    ];
    expect(renderDeepSeekV32Chat(messages, null, {})).toBe(`${BOS}<｜User｜>\n\n# The user's message is: Be brief.<｜Assistant｜></think>OK.${EOS}`);
    expect(() => renderDeepSeekV32Chat([{ role: 'developer', content: '' }], null, {})).toThrow(/developer message needs content/);
  });

  it('refuses what the encoder refuses', () => {
    const thinking = { templateKwargs: { thinking: true } };
    // a result with no call to answer
    expect(() =>
      renderDeepSeekV32Chat(
        [
          { role: 'user', content: 'Hi' },
          { role: 'tool', content: 'x' },
        ],
        null,
        {},
      ),
    ).toThrow(/answers no tool call/);
    expect(() => renderDeepSeekV32Chat(THINKING.concat({ role: 'tool', tool_call_id: 'c9', content: 'extra' }), null, {})).toThrow(
      /answers no tool call/,
    );
    // thinking on: an answer after the last user turn with neither reasoning nor calls
    expect(() =>
      renderDeepSeekV32Chat(
        [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: 'Hello' },
        ],
        null,
        thinking,
      ),
    ).toThrow(/needs reasoning or tool calls/);
    // ... but a history rendered to count its turns (no generation prompt) writes it: the gateway cuts the next prompt
    // after it, and vLLM renders that answer (without reasoning) once the next user turn comes
    const answered = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello' },
    ];
    expect(renderDeepSeekV32Chat(answered, null, { ...thinking, addGenerationPrompt: false })).toBe(
      `${BOS}<｜User｜>Hi<｜Assistant｜><think></think>Hello${EOS}`,
    );
    // thinking on, ending with a user turn: dropping reasoning drops an earlier developer message, and the encoder fails
    const developerFirst = [
      { role: 'developer', content: 'Be brief.' },
      { role: 'assistant', reasoning_content: 'r', content: 'OK.' },
      { role: 'user', content: 'Hi' },
    ];
    expect(() => renderDeepSeekV32Chat(developerFirst, null, thinking)).toThrow(/drops a developer message/);
    expect(() => renderDeepSeekV32Chat([{ role: 'function', content: 'x' }], null, {})).toThrow(/no role function/);
  });

  it("agrees with llama.cpp's community template (models/templates/DeepSeek-V3.2.jinja) where it makes the encoder's choices", () => {
    const template = readFileSync(fileURLToPath(new URL('../../fixtures/chat-templates/deepseek-v3.2-llama-cpp.jinja', import.meta.url)), 'utf8');
    const llamaCpp = (messages: unknown[], enableThinking: boolean) =>
      renderChatTemplate({
        template,
        messages: normalizeChatMessages(messages),
        tools: null,
        addGenerationPrompt: false,
        extraContext: { enable_thinking: enableThinking },
      });
    // no tools, no developer message, no generation prompt: there the two agree byte for byte
    expect(llamaCpp(LOOP, false)).toBe(LOOP_PROMPT);
    expect(llamaCpp(THINKING, true)).toBe(THINKING_PROMPT);
    // where they differ (docs/model-families.md): its tools section's blank lines and place, its generation prompt
    const hi = [{ role: 'user', content: 'Hi' }];
    expect(
      renderChatTemplate({
        template,
        messages: normalizeChatMessages(hi),
        tools: [LS_TOOL],
        addGenerationPrompt: false,
        extraContext: { enable_thinking: false },
      }),
    ).toContain('## Tools\n\nYou have access');
    expect(
      renderChatTemplate({ template, messages: normalizeChatMessages(hi), addGenerationPrompt: true, extraContext: { enable_thinking: false } }),
    ).toBe(`${BOS}<｜User｜>Hi<｜Assistant｜></think><｜User｜>\n<｜Assistant｜></think>`);
  });

  it('is the renderer of a V3.2 folder without a template (model_type deepseek_v32), not of one with a template', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const bare = mkdtempSync(path.join(tmpdir(), 'tokentap-deepseek-v32-render-'));
    const templated = mkdtempSync(path.join(tmpdir(), 'tokentap-deepseek-v32-render-'));
    try {
      writeFileSync(path.join(bare, 'config.json'), '{"model_type": "deepseek_v32"}');
      writeFileSync(path.join(templated, 'config.json'), '{"model_type": "deepseek_v32"}');
      writeFileSync(
        path.join(templated, 'chat_template.jinja'),
        readFileSync(fileURLToPath(new URL('../../fixtures/chat-templates/deepseek-v3.2-sglang.jinja', import.meta.url)), 'utf8'),
      );
      const family = resolveModelFamily({ modelDir: bare }).family;
      expect(family.renderPrompt).toBe(renderDeepSeekV32Chat);
      expect(family.rendererName).toBe('deepseek-v32-encoding');
      expect(resolveModelFamily({ modelDir: templated }).family.renderPrompt).toBeUndefined();
    } finally {
      rmSync(bare, { recursive: true, force: true });
      rmSync(templated, { recursive: true, force: true });
    }
  });
});
