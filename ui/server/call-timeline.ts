import type { CallRow, RewardRow } from '../../store/index.js';
import type { CallTimelineItem } from '../viewer-api.js';

/**
 * One call as the session's timeline shows it; `rewards` are the session's current rewards (the call's own, when it
 * was rewarded on its own, is its `reward`).
 *
 * @example toTimelineItem(call, store.listRewards(call.sessionId))
 */
export function toTimelineItem(call: CallRow, rewards: readonly RewardRow[]): CallTimelineItem {
  return {
    id: call.id,
    seq: call.seq,
    frontDoor: call.frontDoor,
    path: call.path,
    requestedModel: call.requestedModel,
    backendModel: call.backendModel,
    stream: call.stream,
    status: call.status,
    httpStatus: call.httpStatus,
    startedAt: call.startedAt,
    endedAt: call.endedAt,
    timeToFirstTokenMs: call.timeToFirstTokenMs,
    totalMs: call.totalMs,
    promptTokens: call.promptTokenIds?.length ?? call.usage?.promptTokens ?? null,
    completionTokens: call.completionTokenIds?.length ?? call.usage?.completionTokens ?? null,
    finishReason: call.finishReason,
    flags: [...call.flags],
    backendId: call.backendId,
    policyVersion: call.policyVersion,
    weightVersion: call.weightVersion,
    error: call.error === null ? null : { code: call.error.code ?? null, message: call.error.message },
    reward: rewards.find((reward) => reward.callId === call.id)?.value ?? null,
  };
}
