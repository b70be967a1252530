import { z } from 'zod';
import { isRecord } from '../core/json/is-record.js';
import { simFaultSchema } from './sim-fault.js';

const scriptMatchSchema = z.strictObject({
  /** the last `user` message's text contains this */
  lastUserContains: z.string().optional(),
  /** the last `tool` message's text contains this */
  lastToolResultContains: z.string().optional(),
  /** any message's text (chat) or the prompt (completions) contains this */
  promptContains: z.string().optional(),
  /** the request's `model` is exactly this */
  model: z.string().optional(),
  /** the request has (true) or has no (false) tools */
  hasTools: z.boolean().optional(),
  endpoint: z.enum(['chat', 'completions', 'generate']).optional(),
  stream: z.boolean().optional(),
});

const scriptToolCallSchema = z.strictObject({
  name: z.string(),
  /**
   * an object (printed like the chat template's `tojson`) or the text of a JSON object, written as is; the answer
   * is built from it (vLLM re-dumps the arguments of a non-streamed call), so it must be a JSON object
   */
  arguments: z
    .union([z.record(z.string(), z.unknown()), z.string().refine(isJsonObjectText, 'a string `arguments` must be the text of a JSON object')])
    .default({}),
});

function isJsonObjectText(text: string): boolean {
  try {
    return isRecord(JSON.parse(text));
  } catch {
    return false;
  }
}

/** One scripted reply. Use either `text` (raw completion text, answered as content only) or the structured fields. */
export const simScriptEntrySchema = z.strictObject({
  match: scriptMatchSchema.optional(),
  /** how many requests this entry answers; "forever" never runs out */
  times: z.union([z.number().int().positive(), z.literal('forever')]).default(1),
  /**
   * the raw completion text the model generates (before the end-of-turn token), answered as content only: the
   * simulator parses no output, so a chat reply with reasoning or tool calls uses the fields below
   */
  text: z.string().optional(),
  /** becomes `<think>\n…\n</think>\n\n` when thinking is on (Qwen3's default) */
  reasoning: z.string().optional(),
  content: z.string().optional(),
  toolCalls: z.array(scriptToolCallSchema).optional(),
  /** "length" ends without the end-of-turn token, as if max_tokens cut it */
  finishReason: z.enum(['stop', 'length']).optional(),
  /** Llama 3 (family llama3): the tool calls after `<|python_tag|>`, the turn ended by `<|eom_id|>` (Environment: ipython) */
  pythonTag: z.boolean().optional(),
  fault: simFaultSchema.optional(),
});

export const simScriptSchema = z.strictObject({
  replies: z.array(simScriptEntrySchema),
  /** when no entry matches: the seeded random policy, or a 500 error naming the request */
  otherwise: z.enum(['policy', 'error']).default('policy'),
});

/** A script as written (JSON file or object); see docs/sim.md. */
export type SimScript = z.input<typeof simScriptSchema>;
export type SimScriptEntry = z.output<typeof simScriptEntrySchema>;
export type ResolvedSimScript = z.output<typeof simScriptSchema>;

/** What a script entry can match on; extracted once per request. */
export interface RequestFacts {
  /** `generate`: SGLang's native `POST /generate` */
  endpoint: 'chat' | 'completions' | 'generate';
  stream: boolean;
  model: string | null;
  hasTools: boolean;
  lastUserText: string | null;
  lastToolResultText: string | null;
  /** all message texts (chat) or the prompt text (completions), for `promptContains` */
  promptTexts: readonly string[];
}

/**
 * Validates a script; throws zod's error with the path of the bad field.
 *
 * @example
 * parseSimScript(JSON.parse(await readFile('script.json', 'utf8')));
 */
export function parseSimScript(script: unknown): ResolvedSimScript {
  return simScriptSchema.parse(script);
}

/** The script with per-entry use counts: the first matching entry with uses left answers. */
export interface ScriptBook {
  readonly otherwise: 'policy' | 'error';
  /** takes one use of the first matching entry; null when none matches */
  take(facts: RequestFacts): { entry: SimScriptEntry; index: number } | null;
}

/**
 * @example
 * const book = createScriptBook(parseSimScript(script));
 * const picked = book.take(facts);
 */
export function createScriptBook(script: ResolvedSimScript): ScriptBook {
  const used = script.replies.map(() => 0);
  return {
    otherwise: script.otherwise,
    take(facts) {
      for (const [index, entry] of script.replies.entries()) {
        const uses = used[index] ?? 0;
        if (entry.times !== 'forever' && uses >= entry.times) continue;
        if (!matches(entry.match, facts)) continue;
        used[index] = uses + 1;
        return { entry, index };
      }
      return null;
    },
  };
}

function matches(match: SimScriptEntry['match'], facts: RequestFacts): boolean {
  if (match === undefined) return true;
  if (match.endpoint !== undefined && match.endpoint !== facts.endpoint) return false;
  if (match.stream !== undefined && match.stream !== facts.stream) return false;
  if (match.model !== undefined && match.model !== facts.model) return false;
  if (match.hasTools !== undefined && match.hasTools !== facts.hasTools) return false;
  if (match.lastUserContains !== undefined && !(facts.lastUserText ?? '').includes(match.lastUserContains)) return false;
  if (match.lastToolResultContains !== undefined && !(facts.lastToolResultText ?? '').includes(match.lastToolResultContains)) {
    return false;
  }
  if (match.promptContains !== undefined) {
    const needle = match.promptContains;
    if (!facts.promptTexts.some((text) => text.includes(needle))) return false;
  }
  return true;
}
