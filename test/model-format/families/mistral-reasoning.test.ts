import { describe, expect, it } from 'vitest';
import { parseOutput } from '../../../gateway/token-faithful/output-parsers.js';
import { isMistralThinkFolder } from '../../../model-format/families/mistral/index.js';
import { createMistralReasoningStream, splitMistralReasoning } from '../../../model-format/families/mistral/split-mistral-reasoning.js';
import { familyByName, readModelFolderFacts, reasoningParserNames, resolveModelFamily } from '../../../model-format/families/model-families.js';
import { mistralModelFolder } from '../../token-faithful/mistral-model-folder.js';

// The expected outputs below were written by reading vLLM's MistralReasoningParser (vllm/reasoning/
// mistral_reasoning_parser.py at 3ff2de9c: its own extract_reasoning; its streaming is BaseThinkingReasoningParser.
// extract_reasoning_streaming, vllm/reasoning/basic_parsers.py at 9b533e7b) and tracing it by hand on each text; no vLLM
// was run here. `[THINK]` and `[/THINK]` are single control tokens, so a streamed delta that is exactly one of them is
// vLLM's "one special token" delta; streamed cases feed one token a delta unless they say otherwise.

/** Feeds the deltas one by one and returns what each yields. */
function streamDeltas(deltas: string[]): unknown[] {
  const stream = createMistralReasoningStream();
  return deltas.map((delta) => stream.push(delta));
}

describe("Mistral [THINK] reasoning, whole (vLLM's MistralReasoningParser.extract_reasoning)", () => {
  it('splits at the first [THINK] and the [/THINK] after it: reasoning between, content around (null when empty)', () => {
    expect(splitMistralReasoning('[THINK]weigh it[/THINK]Yes.')).toEqual({ reasoning: 'weigh it', content: 'Yes.' });
    expect(splitMistralReasoning('[THINK]weigh it[/THINK]')).toEqual({ reasoning: 'weigh it', content: null });
    expect(splitMistralReasoning('[THINK][/THINK]Yes.')).toEqual({ reasoning: '', content: 'Yes.' });
    // text before [THINK] joins the content (prev_bot_token + post_eot_token)
    expect(splitMistralReasoning('Hi[THINK]x[/THINK] there')).toEqual({ reasoning: 'x', content: 'Hi there' });
    // only the first [/THINK] after [THINK] ends it; a second [THINK] inside is reasoning text
    expect(splitMistralReasoning('[THINK]a[THINK]b[/THINK]c[/THINK]d')).toEqual({ reasoning: 'a[THINK]b', content: 'c[/THINK]d' });
  });

  it('makes the rest reasoning when [THINK] is never closed, what came before it content', () => {
    expect(splitMistralReasoning('[THINK]cut off')).toEqual({ reasoning: 'cut off', content: null });
    expect(splitMistralReasoning('pre[THINK]cut')).toEqual({ reasoning: 'cut', content: 'pre' });
    // a [/THINK] before the [THINK] does not close it (has_valid_eot_token looks after [THINK] only)
    expect(splitMistralReasoning('[/THINK]x[THINK]y')).toEqual({ reasoning: 'y', content: '[/THINK]x' });
  });

  it('leaves text without [THINK] content, a stray first [/THINK] taken out; an empty completion is empty content', () => {
    expect(splitMistralReasoning('Plain answer.')).toEqual({ reasoning: null, content: 'Plain answer.' });
    expect(splitMistralReasoning('a[/THINK]b[/THINK]c')).toEqual({ reasoning: null, content: 'ab[/THINK]c' });
    expect(splitMistralReasoning('')).toEqual({ reasoning: null, content: '' });
  });

  it('hands the tool-call parser only the content: v11+ calls after the think block are read as calls', () => {
    const text = '[THINK]Need a.ts.[/THINK]Reading.[TOOL_CALLS]read_file[ARGS]{"path": "a.ts"}';
    const tools = [{ type: 'function', function: { name: 'read_file' } }];
    const family = familyByName('mistral')!;
    const parsed = parseOutput(text, { family, reasoning: 'mistral', toolCalls: 'mistral-v11', tools, parseToolCalls: true });
    expect(parsed).toMatchObject({ reasoning: 'Need a.ts.', content: 'Reading.' });
    expect(parsed.toolCalls.map((call) => call.function)).toEqual([{ name: 'read_file', arguments: '{"path": "a.ts"}' }]);
  });
});

describe('Mistral [THINK] reasoning, streamed (BaseThinkingReasoningParser.extract_reasoning_streaming)', () => {
  it('sends nothing for the tags themselves, reasoning between them, content after', () => {
    expect(streamDeltas(['[THINK]', 'hm', ' ok', '[/THINK]', 'Yes', '.'])).toEqual([
      null,
      { reasoning: 'hm' },
      { reasoning: ' ok' },
      null,
      { content: 'Yes' },
      { content: '.' },
    ]);
    // content before [THINK] is content, the think block after it reasoning
    expect(streamDeltas(['pre', '[THINK]', 'r', '[/THINK]', 'c'])).toEqual([{ content: 'pre' }, null, { reasoning: 'r' }, null, { content: 'c' }]);
  });

  it('splits deltas of several tokens as vLLM does, the [THINK] text kept in a delta that opens without closing', () => {
    expect(streamDeltas(['[THINK]hm', ' ok[/THINK]Ye', 's'])).toEqual([
      { reasoning: '[THINK]hm' },
      { reasoning: ' ok', content: 'Ye' },
      { content: 's' },
    ]);
    expect(streamDeltas(['[THINK]a[/THINK]b'])).toEqual([{ reasoning: 'a', content: 'b' }]);
    expect(streamDeltas(['[THINK]a[/THINK]'])).toEqual([{ reasoning: 'a' }]);
  });

  it('streams text without [THINK] as content: a lone [/THINK] token sends nothing, one inside a longer delta stays', () => {
    expect(streamDeltas(['Hi', ' there'])).toEqual([{ content: 'Hi' }, { content: ' there' }]);
    expect(streamDeltas(['a', '[/THINK]', 'b'])).toEqual([{ content: 'a' }, null, { content: 'b' }]);
    expect(streamDeltas(['x[/THINK]y'])).toEqual([{ content: 'x[/THINK]y' }]);
  });

  it('keeps a stream cut inside the think block reasoning', () => {
    expect(streamDeltas(['[THINK]', 'still', ' thinking'])).toEqual([null, { reasoning: 'still' }, { reasoning: ' thinking' }]);
  });
});

describe('the mistral family and [THINK]', () => {
  it('names the reasoning parser mistral, and drops earlier reasoning from history (the published templates do)', () => {
    const family = familyByName('mistral')!;
    expect(family.reasoning?.name).toBe('mistral');
    expect(reasoningParserNames()).toContain('mistral');
    expect(family.history).toMatchObject({ dropsReasoning: true, reserializesToolArguments: true });
  });

  it('tells a v13+ folder by [THINK] among its tokens or in its template', () => {
    expect(isMistralThinkFolder({ template: '', addedTokens: ['[TOOL_CALLS]', '[ARGS]', '[THINK]', '[/THINK]'] })).toBe(true);
    expect(isMistralThinkFolder({ template: 'Your thinking process must follow the template below:[THINK]Your thoughts[/THINK]' })).toBe(true);
    expect(isMistralThinkFolder({ template: '[TOOL_CALLS]', addedTokens: ['[TOOL_CALLS]', '[ARGS]'] })).toBe(false);
  });

  it('reads reasoning by default for a folder whose tokenizer has [THINK] (with v11 calls), none for other folders', () => {
    const think = mistralModelFolder({ think: true });
    const v11 = mistralModelFolder({ v11: true });
    try {
      expect(readModelFolderFacts(think.dir).addedTokens).toEqual(expect.arrayContaining(['[ARGS]', '[THINK]', '[/THINK]']));
      expect(resolveModelFamily({ modelDir: think.dir })).toMatchObject({
        family: { name: 'mistral' },
        reasoningParser: 'mistral',
        toolCallParser: 'mistral-v11',
      });
      expect(resolveModelFamily({ modelDir: think.dir, reasoningParser: 'none' }).reasoningParser).toBe('none');
      expect(resolveModelFamily({ modelDir: v11.dir })).toMatchObject({ reasoningParser: 'none', toolCallParser: 'mistral-v11' });
      // vLLM's parser refuses a tokenizer without the think tokens; so does the flag here, for such a folder
      expect(() => resolveModelFamily({ modelDir: v11.dir, reasoningParser: 'mistral' })).toThrow(/no reasoning parser mistral/);
    } finally {
      think.remove();
      v11.remove();
    }
  });
});
