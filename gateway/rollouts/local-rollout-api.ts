import type { RolloutApi } from './rollout-api.js';
import type { RolloutControl } from './rollout-control.js';
import { createRolloutSession, rewardBody, type SessionActions } from './rollout-session.js';

/**
 * The rollout API in-process, over the gateway's own RolloutControl: what `createGateway` returns besides the
 * app. Every method is async like its HTTP twin (`connectGateway`), so code moves between the two unchanged.
 *
 * @example
 * const api = createLocalRolloutApi(control, () => 'http://127.0.0.1:4000');
 * const session = await api.createSession({ groupId: 'task-7' });
 */
export function createLocalRolloutApi(control: RolloutControl, baseUrl: () => string): RolloutApi {
  const actions: SessionActions = {
    reward: async (sessionId, reward, options) => control.reward(sessionId, rewardBody(reward, options), 'library'),
    end: async (sessionId, status) => control.endSession(sessionId, status),
    info: async (sessionId) => control.sessionInfo(sessionId),
  };
  return {
    createSession: async (options = {}) => createRolloutSession(control.createSession(options, baseUrl()), actions),
    getSession: actions.info,
    endSession: (sessionId, status = 'completed') => actions.end(sessionId, status),
    reward: actions.reward,
    rewardHistory: async (sessionId) => control.rewardHistory(sessionId),
    declareGroup: async (groupId, options) => control.declareGroup({ id: groupId, ...options }),
    getGroup: async (groupId) => control.groupInfo(groupId),
    waitForGroup: (groupId, options = {}) => control.waitForGroup(groupId, options.signal),
    setPolicyVersion: async (version) => control.setPolicyVersion({ version }),
    pause: (options) => control.pause(options),
    resume: async () => control.resume(),
    state: async () => control.state(),
    on: (event, listener) => control.events.on(event, listener),
  };
}
