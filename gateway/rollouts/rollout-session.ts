import type { RewardRow, SessionEndStatus } from '../../store/index.js';
import type { CreatedSession, RewardInput, RewardOptions, RolloutSession, SessionInfo } from './rollout-api.js';

/** What a session handle does, in-process or over HTTP. */
export interface SessionActions {
  reward(sessionId: string, reward: RewardInput, options?: RewardOptions): Promise<RewardRow>;
  end(sessionId: string, status: SessionEndStatus): Promise<SessionInfo>;
  info(sessionId: string): Promise<SessionInfo>;
}

/**
 * The wire shape of a reward: `{ value }` for a scalar; `{ components }` (and `value` when given) for named parts.
 *
 * @example rewardBody({ correct: 1, style: 0.5 }, { callId }) // { components: { correct: 1, style: 0.5 }, callId }
 */
export function rewardBody(reward: RewardInput, options: RewardOptions = {}): Record<string, unknown> {
  const body: Record<string, unknown> = typeof reward === 'number' ? { value: reward } : { components: reward };
  if (options.value !== undefined) body.value = options.value;
  if (options.callId !== undefined) body.callId = options.callId;
  return body;
}

/**
 * A session handle from what `createSession` answered: base URLs and the key in the shapes clients take.
 *
 * @example
 * const session = createRolloutSession(created, actions);
 * const client = new OpenAI(session.openai);
 */
export function createRolloutSession(created: CreatedSession, actions: SessionActions): RolloutSession {
  const { session, apiKey, baseUrls } = created;
  return {
    id: session.id,
    groupId: session.groupId,
    apiKey,
    openai: { baseURL: baseUrls.openai, apiKey },
    anthropic: { baseURL: baseUrls.anthropic, apiKey },
    env: {
      OPENAI_BASE_URL: baseUrls.openai,
      OPENAI_API_KEY: apiKey,
      ANTHROPIC_BASE_URL: baseUrls.anthropic,
      ANTHROPIC_API_KEY: apiKey,
    },
    reward: (reward, options) => actions.reward(session.id, reward, options),
    end: (status = 'completed') => actions.end(session.id, status),
    info: () => actions.info(session.id),
  };
}
