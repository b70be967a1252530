import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { GroupRow, PolicyVersionRow, RewardRow, SessionEndReason, SessionEndStatus, Store } from '../../store/index.js';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { isPassingStoreFailure } from '../../store/store-failure-kinds.js';
import { CallGate, type PauseMode } from './call-gate.js';
import { GatewayEventHub } from './gateway-event-hub.js';
import { GroupWaits } from './group-waits.js';
import { startIdleSweeper, type IdleSweeper } from './idle-sweeper.js';
import { withStoreErrors } from './map-store-error.js';
import type { CreatedSession, CreateSessionOptions, GatewayState, GroupInfo, PauseOptions, SessionInfo } from './rollout-api.js';
import { createSessionSchema, declareGroupSchema, parseInput, pauseSchema, policyVersionSchema, rewardSchema } from './rollout-schemas.js';
import { RolloutReadCache } from './rollout-read-cache.js';
import { createSessionKey, hashSessionKey } from './session-keys.js';

export interface RolloutControlOptions {
  store: Store;
  pauseMode: PauseMode;
  sessionIdleTimeoutMs: number;
  logger: FastifyBaseLogger;
  /** a model call was refused because the store could not be read (readForCall): the recorder counts it */
  onStoreUnreadable?: (error: unknown) => void;
}

/** Who posted a reward, kept with it. */
export type RewardSource = 'admin' | 'session-key' | 'library';

const DEFAULT_DRAIN_TIMEOUT_MS = 600_000;

/** `.../s/{id}/v1` for OpenAI clients, `.../s/{id}` for Anthropic clients (they append /v1/messages). */
export function sessionBaseUrls(baseUrl: string, sessionId: string): { openai: string; anthropic: string } {
  const root = `${baseUrl.replace(/\/+$/, '')}/s/${encodeURIComponent(sessionId)}`;
  return { openai: `${root}/v1`, anthropic: root };
}

/**
 * The rollout API's one implementation (docs/rollouts.md): sessions with keys, rewards, groups, policy versions,
 * pause and drain, and the events. The admin routes and the library both call it; input from either is validated
 * here with the same schemas, and its errors are TokentapErrors (worded per protocol by whoever answers).
 *
 * @example
 * const control = new RolloutControl({ store, pauseMode: 'hold', sessionIdleTimeoutMs: 0, logger });
 * const { session, apiKey } = control.createSession({ groupId: 'task-7' }, 'http://127.0.0.1:4000');
 * control.reward(session.id, { value: 1 }, 'library');
 * control.endSession(session.id, 'completed');
 */
export class RolloutControl {
  readonly store: Store;
  readonly gate: CallGate;
  readonly events: GatewayEventHub;
  readonly sweeper: IdleSweeper;
  /** the rollout rows and key owners calls' admission reads, kept where the store announces session ends */
  readonly reads: RolloutReadCache;
  readonly #groupWaits = new GroupWaits();
  readonly #log: FastifyBaseLogger;
  readonly #onStoreUnreadable: (error: unknown) => void;
  #policyVersion: string | null;

  constructor(options: RolloutControlOptions) {
    this.store = options.store;
    this.#log = options.logger;
    this.#onStoreUnreadable = options.onStoreUnreadable ?? (() => undefined);
    this.reads = new RolloutReadCache(options.store, options.logger);
    this.gate = new CallGate(options.pauseMode);
    this.events = new GatewayEventHub(options.logger);
    this.#policyVersion = options.store.getPolicyVersion()?.version ?? null;
    this.sweeper = startIdleSweeper({
      store: options.store,
      gate: this.gate,
      timeoutMs: options.sessionIdleTimeoutMs,
      endIdle: (sessionId) => this.#endIdle(sessionId),
      onError: (error) => this.#log.warn({ err: error }, 'the idle-session sweep could not read the store; the next sweep tries again'),
    });
  }

  /** the weight version new calls are recorded under */
  get policyVersion(): string | null {
    return this.#policyVersion;
  }

  /**
   * Runs a store read that a model call's admission needs (its session's rollout row, a key's owner). While the store
   * cannot be read (PostgreSQL restarting, the network down: a passing failure, store/store-failure-kinds.ts) the call
   * could not be recorded either: it is refused with TT_RECORDING_FAILED (503) before the backend generates, under
   * either recordFailure policy, since whose call it is and whether it may be made at all are in the store; and it is
   * counted as a recording failure (`onStoreUnreadable`), so /healthz and /metrics say so even when no call gets further.
   *
   * @example const rollout = control.readForCall(() => control.store.getRollout(sessionId));
   */
  readForCall<T>(read: () => T): T {
    try {
      return read();
    } catch (error) {
      if (!isPassingStoreFailure(error)) throw error;
      this.#onStoreUnreadable(error);
      const code = (error as { code?: unknown }).code;
      throw new TokentapError('TT_RECORDING_FAILED', {
        message: `The call could not be recorded: the store cannot be read now (${String(code)})`,
        cause: error,
      });
    }
  }

  /** the session a key belongs to, or null for a key no session has */
  sessionForKey(key: string): string | null {
    return this.reads.ownerOf(hashSessionKey(key));
  }

  createSession(options: CreateSessionOptions, baseUrl: string): CreatedSession {
    const input = parseInput(createSessionSchema, options, 'session');
    const sessionId = input.id ?? randomUUID();
    const apiKey = createSessionKey();
    withStoreErrors(() =>
      this.store.createRollout({
        sessionId,
        groupId: input.groupId ?? null,
        task: input.task,
        tags: input.tags ?? [],
        split: input.split ?? null,
        sampling: input.sampling ?? {},
        keyHash: hashSessionKey(apiKey),
        createdAt: Date.now(),
      }),
    );
    return { session: this.sessionInfo(sessionId), apiKey, baseUrls: sessionBaseUrls(baseUrl, sessionId) };
  }

  sessionInfo(sessionId: string): SessionInfo {
    const rollout = this.store.getRollout(sessionId);
    if (rollout === null) throw new TokentapError('TT_SESSION_NOT_FOUND', { message: `No session ${sessionId}` });
    const rewards = this.store.listRewards(sessionId);
    return {
      ...rollout,
      reward: rewards.find((reward) => reward.callId === null) ?? null,
      callRewards: rewards.filter((reward) => reward.callId !== null),
    };
  }

  endSession(sessionId: string, status: SessionEndStatus, reason: SessionEndReason = 'explicit'): SessionInfo {
    const { rollout, completedGroup } = withStoreErrors(() => this.store.endSession(sessionId, { status, reason, endedAt: Date.now() }));
    this.reads.forget(sessionId);
    this.sweeper.forget(sessionId);
    this.events.emit('session-end', { sessionId, status, reason, groupId: rollout.groupId, endedAt: rollout.endedAt as number });
    if (completedGroup !== null) this.#groupCompleted(completedGroup);
    return this.sessionInfo(sessionId);
  }

  reward(sessionId: string, input: unknown, source: RewardSource): RewardRow {
    const reward = parseInput(rewardSchema, input, 'reward');
    const components = reward.components ?? null;
    const value = reward.value ?? Object.values(components ?? {}).reduce((sum, part) => sum + part, 0);
    return withStoreErrors(() =>
      this.store.addReward({ sessionId, callId: reward.callId ?? null, value, components, source, createdAt: Date.now() }),
    );
  }

  rewardHistory(sessionId: string): RewardRow[] {
    this.sessionInfo(sessionId);
    return this.store.listRewards(sessionId, { history: true });
  }

  declareGroup(input: unknown): GroupInfo {
    const group = parseInput(declareGroupSchema, input, 'group');
    const declared = withStoreErrors(() =>
      this.store.declareGroup({ groupId: group.id, expectedSize: group.expectedSize, metadata: group.metadata ?? {}, createdAt: Date.now() }),
    );
    if (declared.completed) this.#groupCompleted(declared.group);
    return this.groupInfo(group.id);
  }

  groupInfo(groupId: string): GroupInfo {
    const group = this.store.getGroup(groupId);
    if (group === null) throw new TokentapError('TT_GROUP_NOT_FOUND', { message: `No group ${groupId}` });
    return this.#describeGroup(group);
  }

  /** Resolves once the group is complete: at once when it already is. */
  async waitForGroup(groupId: string, signal?: AbortSignal): Promise<GroupInfo> {
    const group = this.groupInfo(groupId);
    return group.complete ? group : this.#groupWaits.wait(groupId, signal);
  }

  setPolicyVersion(input: unknown): PolicyVersionRow {
    const { version } = parseInput(policyVersionSchema, input, 'policy version');
    const row = this.store.setPolicyVersion(version, Date.now());
    this.#policyVersion = version;
    this.#log.info({ policyVersion: version }, 'policy version set');
    return row;
  }

  async pause(input: PauseOptions | undefined): Promise<GatewayState> {
    const options = parseInput(pauseSchema, input ?? {}, 'pause request');
    this.gate.pause({ mode: options.mode, retryAfterSeconds: options.retryAfterSeconds });
    this.#log.info({ mode: this.gate.state().pauseMode }, 'paused: new calls wait for resume');
    if (options.drain !== true) return this.state();
    const drained = await this.gate.waitForDrain(options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS);
    return { ...this.state(), drained };
  }

  resume(): GatewayState {
    this.gate.resume();
    return this.state();
  }

  state(): GatewayState {
    return { ...this.gate.state(), policyVersion: this.#policyVersion };
  }

  /** A call left the pipeline: its session is active, and `call-end` listeners get its row. */
  callEnded(callId: string, sessionId: string, groupId: string | null): void {
    this.sweeper.touch(sessionId);
    if (!this.events.hasListeners('call-end')) return;
    const call = this.store.getCall(callId);
    // no row: the call was refused before it was recorded; in progress: its end could not be recorded
    if (call === null || call.status === 'in_progress') return;
    this.events.emit('call-end', {
      callId,
      sessionId,
      seq: call.seq,
      status: call.status,
      policyVersion: call.policyVersion,
      groupId,
      promptTokens: call.promptTokenIds?.length ?? call.usage?.promptTokens ?? null,
      completionTokens: call.completionTokenIds?.length ?? call.usage?.completionTokens ?? null,
      call,
    });
  }

  async close(): Promise<void> {
    this.gate.close();
    this.sweeper.stop();
    this.#groupWaits.close();
    await this.reads.close();
  }

  #endIdle(sessionId: string): void {
    try {
      this.endSession(sessionId, 'aborted', 'idle-timeout');
      this.#log.info({ sessionId }, 'session ended after its idle timeout');
    } catch (error) {
      // ended meanwhile by its harness: nothing to do
      if (!(error instanceof TokentapError && error.code === 'TT_SESSION_ENDED'))
        this.#log.error({ err: error, sessionId }, 'ending an idle session failed');
    }
  }

  #groupCompleted(group: GroupRow): void {
    const info = this.#describeGroup(group);
    this.events.emit('group-complete', { groupId: group.id, group: info });
    this.#groupWaits.complete(info);
  }

  #describeGroup(group: GroupRow): GroupInfo {
    const sessions = group.sessions.map((session) => {
      const reward = this.store.listRewards(session.id).find((row) => row.callId === null);
      return { ...session, reward: reward?.value ?? null };
    });
    return { ...group, complete: group.completedAt !== null, sessions };
  }
}
