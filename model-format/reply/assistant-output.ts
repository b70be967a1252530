/** One assistant reply as an OpenAI-compatible server reports it, after its reasoning and tool parsers ran. */
export interface AssistantOutput {
  reasoning: string | null;
  content: string | null;
  /** `arguments` as the server sent it (a JSON string) */
  toolCalls: Array<{ name: string; arguments: string }>;
  /** true when the turn ended by itself (finish `stop` or `tool_calls`): the end-of-turn token follows */
  endsTurn: boolean;
}

export interface ReplyContext {
  /** the rendered prompt, to see what the generation prompt already opened (e.g. `<think>\n`) */
  promptText: string;
}

/** The generated text and the special token that ended the turn; or why the reply cannot be written honestly. */
export type ReplyText = { text: string; endToken: string | null } | { refusal: string };
