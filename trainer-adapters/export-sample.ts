import type { Sample } from '../reconstruct/index.js';

/**
 * A message of a recorded conversation in OpenAI Chat Completions form (what every front door is translated to
 * before the backend sees it), reasoning kept apart from content.
 */
export interface ConversationMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** the assistant's reasoning (`reasoning_content` / `reasoning`), when the call had any */
  reasoning?: string;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  /** tool messages: the call they answer */
  tool_call_id?: string;
  /** tool messages: the tool's name, when the request gave it */
  name?: string;
}

/**
 * The conversation a sample's last call saw, plus that call's reply as the final assistant message; read from
 * the stored bodies only for formats that need text (`needs.conversation`).
 */
export interface Conversation {
  messages: ConversationMessage[];
  /** the tool definitions the call offered, as sent (OpenAI `tools` form) */
  tools: unknown[];
  /** `chat_template_kwargs` the call was rendered with (e.g. `{ enable_thinking: false }`), {} when none */
  templateOptions: Record<string, unknown>;
}

/**
 * A reconstructed sample as the export hands it to a trainer adapter: the sample, where it sits in the export,
 * and what the export computed for it (advantage, loss weight over the exported samples of its rollout).
 * Samples of one group are handed over contiguously, rollouts in group order, samples in chain order.
 */
export interface ExportSample {
  sample: Sample;
  /** 0-based position of this sample in the export (file or batch) */
  index: number;
  /** the group key: the session's `groupId`, else its rollout id (a group of one) */
  groupKey: string;
  /** 0-based running index of the group in the export (slime `group_index`) */
  groupIndex: number;
  /** 0-based running index of the rollout in the export (slime's integer `rollout_id`) */
  rolloutIndex: number;
  /** 0-based index of the rollout inside its group (SkyRL `repetition_id`) */
  repetitionIndex: number;
  /** 0-based index of this sample among its rollout's exported samples, and their count */
  rolloutSampleIndex: number;
  rolloutSampleCount: number;
  /** the rollout's advantage under the export's estimator; null without a reward or with estimator `none` */
  advantage: number | null;
  /**
   * The loss weight: 1/k over the k exported trainable samples of the rollout (0 for failed/untrained samples),
   * so a rollout split into several samples counts once. The same as `sample.lossWeight`: reconstruction weighs
   * the samples the export keeps.
   */
  lossWeight: number;
  /** the distinct policy versions of the sample's trained tokens, in order of first use */
  policyVersions: string[];
  /** present when the adapter `needs.conversation` and the last call's bodies hold a chat conversation */
  conversation?: Conversation;
}
