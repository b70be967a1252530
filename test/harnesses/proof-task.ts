import type { SimScript } from '../../sim/index.js';

/** The task every agent gets: write a file, read it back, run a shell command on it, answer. */
export const PROOF_FILE = 'notes.txt';
export const PROOF_CONTENT = 'tokens are the product';
/** what the shell step prints (`tr a-z A-Z < notes.txt`), so its result is told apart from the read's */
export const PROOF_SHOUTED = 'TOKENS ARE THE PRODUCT';
export const PROOF_ANSWER = 'HARNESS-DONE notes.txt holds: tokens are the product';
/** the user's prompt; its marker routes the first scripted reply */
export const PROOF_PROMPT = `HARNESS-TASK: write ${PROOF_FILE} containing "${PROOF_CONTENT}", read it back, print it in capitals with a shell command, then answer.`;
const PROOF_MARKER = 'HARNESS-TASK';

export interface ProofToolCall {
  /** the agent's own tool name, as it offers it */
  name: string;
  /** arguments in the shape of that agent's tool schema */
  arguments: Record<string, unknown>;
}

export interface ProofTools {
  write: ProofToolCall;
  /** text the agent's write-tool result contains (routes the read step) */
  writeResultContains: string;
  read: ProofToolCall;
  shell: ProofToolCall;
}

/**
 * The simulator script for one agent. Each step is routed by the result of the step before it, checked from the
 * last step back: a tool loop's last user message still holds the task, so the task entry comes last. `side`
 * entries (title generation, a small fast model, ...) come first. Each entry answers once.
 */
export function proofScript(tools: ProofTools, side: SimScript['replies'] = []): SimScript {
  return {
    replies: [
      ...side,
      { match: { lastToolResultContains: PROOF_SHOUTED }, content: PROOF_ANSWER },
      { match: { lastToolResultContains: PROOF_CONTENT }, toolCalls: [tools.shell] },
      { match: { lastToolResultContains: tools.writeResultContains }, toolCalls: [tools.read] },
      { match: { lastUserContains: PROOF_MARKER, hasTools: true }, reasoning: `I will write ${PROOF_FILE} first.`, toolCalls: [tools.write] },
    ],
    otherwise: 'policy',
  };
}

/** The script entry indexes of the four proof steps in `proofScript(tools, side)`: answer, shell, read, write. */
export function proofStepEntries(sideCount: number): { answer: number; shell: number; read: number; write: number } {
  return { answer: sideCount, shell: sideCount + 1, read: sideCount + 2, write: sideCount + 3 };
}
