/**
 * The trajectory viewer's HTTP API, as JSON on the wire: the one contract between the viewer's server
 * (ui/server/, fastify) and its pages (ui/app/, bundled by vite). Types only, so the pages bundle nothing of the
 * server. Every route is a GET (the viewer is read-only) under VIEWER_API_PREFIX, documented in the OpenAPI
 * document at `${VIEWER_API_PREFIX}/openapi.json` (docs/viewer.md).
 *
 * Times are ms since the epoch; token positions are indexes into a sample's `tokens`.
 */

/** Where the pages live: `tokentap ui` serves them at the root too; `serve --ui` only here. */
export const VIEWER_PREFIX = '/ui';
/** Where the JSON lives. */
export const VIEWER_API_PREFIX = '/ui/api';

export type CallStatusName = 'in_progress' | 'ok' | 'error' | 'aborted' | 'incomplete' | (string & {});
export type SessionStatusName = 'open' | 'completed' | 'truncated' | 'failed' | 'aborted' | (string & {});
export type DriftKindName = 'template-rerender' | 'retokenized' | 'history-edited' | 'parallel-branch' | 'truncated-completion';
export type StrategyName = 'merge' | 'per-call';

/** Errors, every route: `{ "error": { "code", "message" } }` (the rollout API's shape), 400 bad query, 404 no such thing, 401/403 auth. */
export interface ViewerError {
  error: { code: string; message: string };
}

/** GET /ui/api/summary: the counts at the top of every page. */
export interface ViewerSummary {
  sessions: number;
  openSessions: number;
  calls: number;
  groups: number;
  /** calls per status */
  callStatuses: Partial<Record<CallStatusName, number>>;
  /** the newest call's start, null for an empty store */
  lastCallAt: number | null;
  /** does the server decode token ids to text (`--tokenizer`, or the gateway's model dir)? */
  tokenText: boolean;
  /** the store's engine, for the header ('sqlite' | 'postgres') and where it is (a file path, or a URL without password) */
  store: { engine: 'sqlite' | 'postgres'; where: string };
  /** true on a live gateway (`serve --ui`), false for `tokentap ui` */
  live: boolean;
}

export type SessionSortKey = 'lastCallAt' | 'createdAt' | 'callCount' | 'promptTokens' | 'completionTokens' | 'reward' | 'id';

/**
 * GET /ui/api/sessions?search=&group=&status=&minReward=&maxReward=&drift=KIND[,KIND]&frontDoor=&model=&since=&until=
 * &sort=SessionSortKey&order=asc|desc&limit=1..500&offset=0
 * `search` matches a substring of the session id or group id; `drift` keeps sessions whose merge reconstruction
 * breaks with any of the kinds; `since`/`until` are ms or ISO dates. Default sort lastCallAt desc, limit 50.
 */
export interface SessionListResponse {
  /** sessions the filters take, over all pages */
  total: number;
  offset: number;
  limit: number;
  sessions: SessionListItem[];
}

export interface SessionListItem {
  id: string;
  createdAt: number;
  lastCallAt: number | null;
  callCount: number;
  promptTokens: number;
  completionTokens: number;
  callStatuses: Partial<Record<CallStatusName, number>>;
  status: SessionStatusName;
  groupId: string | null;
  reward: number | null;
  /** the front doors and models of its calls */
  frontDoors: string[];
  models: string[];
  /** chain breaks of the merge reconstruction, by kind (empty when none) */
  drift: Partial<Record<DriftKindName, number>>;
  /** samples the merge reconstruction makes */
  samples: number;
}

/** One call on a session's timeline. */
export interface CallTimelineItem {
  id: string;
  seq: number;
  frontDoor: string;
  path: string;
  requestedModel: string | null;
  backendModel: string | null;
  stream: boolean;
  status: CallStatusName;
  httpStatus: number | null;
  startedAt: number;
  endedAt: number | null;
  timeToFirstTokenMs: number | null;
  totalMs: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  finishReason: string | null;
  flags: string[];
  /** the replica that served it */
  backendId: string | null;
  policyVersion: string | null;
  weightVersion: string | null;
  /** the error's code and message, for a failed call */
  error: { code: string | null; message: string } | null;
  /** the call's own reward, when it was rewarded on its own */
  reward: number | null;
}

/** One message as the harness saw it, readable: text parts, reasoning, tool calls and tool results. */
export interface ConversationMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | (string & {});
  /** text content (long content is folded by the page, not cut here) */
  text: string;
  reasoning: string | null;
  toolCalls: Array<{ id: string | null; name: string; arguments: string }>;
  /** for a tool result: the call it answers, and whether the harness marked it an error */
  toolCallId: string | null;
  isError: boolean;
  /** the call whose request first carried this message, or whose response it is */
  callId: string;
  /** true for the model's own reply (from the response), false for what the harness sent */
  fromResponse: boolean;
}

/** The verifier's verdict (reconstruct/verify-sample.ts) on one sample. */
export type Verdict = { ok: true } | { ok: false; errors: string[] };

/** A chain break, as `diagnose` prints it: the two sides from the token where they part. */
export interface BreakView {
  kind: DriftKindName;
  /** the call whose prompt left the chain, and the chain tip it was compared with */
  callId: string;
  againstCallId: string | null;
  /** index of the first differing token, in the sample this break opens */
  position: number;
  expected: { tokenIds: number[]; text: string | null };
  actual: { tokenIds: number[]; text: string | null };
  summary: string;
}

export interface SampleSummary {
  strategy: StrategyName;
  /** index of the sample in its session under the strategy (0, 1, ...): the `:index` of its route */
  index: number;
  chainIndex: number;
  callIds: string[];
  tokens: number;
  /** tokens with mask 1 */
  trainedTokens: number;
  promptLength: number;
  status: string;
  faithful: boolean;
  lossWeight: number;
  reward: number | null;
  verdict: Verdict;
  /** the break that opened this sample's chain, and anything else noted */
  breaks: BreakView[];
}

/** GET /ui/api/sessions/:id */
export interface SessionDetail {
  session: SessionListItem & { metadata: Record<string, unknown>; origin: string };
  calls: CallTimelineItem[];
  /** the conversation of the session's newest call, as its harness sent it, plus that call's reply */
  conversation: ConversationMessage[];
  /** the samples under each strategy: merge first, then per-call */
  samples: Record<StrategyName, SampleSummary[]>;
  /** calls that became no sample (merge), and why */
  skipped: Array<{ callId: string; seq: number; status: string; reason: string }>;
}

/** GET /ui/api/calls/:id: one call's own messages (its request as sent, its reply) for the timeline's detail. */
export interface CallDetail {
  call: CallTimelineItem;
  sessionId: string;
  messages: ConversationMessage[];
}

/**
 * GET /ui/api/sessions/:id/samples/:strategy/:index: a sample token by token. The arrays are parallel, one entry
 * per token; a 100k-token sample is a few MB of JSON, sent whole (the page renders only what is on screen).
 */
export interface SampleTokens {
  sessionId: string;
  summary: SampleSummary;
  /** how many samples the session makes under this strategy (the pages link to the next one while there is one) */
  samples: number;
  tokenIds: number[];
  /** each token's own text (decoded alone; a piece of a multi-byte character shows as its bytes, e.g. `\xe4`), null without a tokenizer */
  texts: string[] | null;
  /** 1: trained (sampled by the backend), 0: context */
  mask: number[];
  /** the backend's logprob of each trained token; null for context */
  logprobs: Array<number | null>;
  /** runs of one policy version over the sample's trained tokens ([start, end) positions; version null: unversioned) */
  policyBands: Array<{ start: number; end: number; version: string | null }>;
  /** the calls the sample is made of: [start, end) of the tokens each call added (its new prompt and its completion) */
  calls: Array<{ callId: string; seq: number; start: number; completionStart: number; end: number }>;
}

/** GET /ui/api/groups: the groups, with their rollouts' rewards. */
export interface GroupListResponse {
  groups: Array<{ groupId: string; sessions: number; rewarded: number; rewardMean: number | null; lastCallAt: number | null }>;
}

/** GET /ui/api/groups/:groupId: its rollouts side by side. */
export interface GroupDetail {
  groupId: string;
  /** the advantage estimator used (the export's default) */
  estimator: string;
  rollouts: Array<{
    session: SessionListItem;
    reward: number | null;
    advantage: number | null;
    /** tokens of the rollout's first merge sample */
    tokens: number;
    trainedTokens: number;
    /** where this rollout's first sample leaves the group's shared prefix (token index), null when it is the prefix */
    divergesAt: number | null;
    /** a short excerpt of its own tokens from `divergesAt` (text when a tokenizer is at hand) */
    divergence: { tokenIds: number[]; text: string | null } | null;
    /**
     * the rollout whose first sample shares the longest prefix with this one's, and that prefix's length: where this
     * rollout parts from the one closest to it (`sharedPrefix` for the first to part from all the others); null in a
     * group of one
     */
    closest: { sessionId: string; sharedTokens: number } | null;
  }>;
  /** tokens all rollouts' first samples share from the start */
  sharedPrefix: number;
}

/** GET /ui/api/stats?strategy=&group=&status=...: `tokentap stats --json` for the overview's plots. */
export type StatsResponse = Record<string, unknown> & {
  summary: Record<string, unknown>;
  lengths: Array<{ from: number; to: number; count: number }>;
  trainedLengths: Array<{ from: number; to: number; count: number }>;
  rewards: {
    count: number;
    min: number;
    mean: number;
    max: number;
    std: number;
    histogram: Array<{ from: number; to: number; count: number }>;
  } | null;
  /** exported samples with trained tokens of each policy version (a sample of two versions counts in both) */
  policyVersions: Record<string, number>;
  /** trained tokens (mask 1) of each policy version, over the exported samples (issue 18: tokens per policy version) */
  policyVersionTokens: Record<string, number>;
  /** trained tokens of calls served under no policy version */
  unversionedTokens: number;
};

/**
 * GET /ui/api/events: server-sent events. `change` (data: ViewerSummary) whenever the store's calls or sessions
 * change (the gateway's own event bus on `serve --ui`, the store polled each second for `tokentap ui`), and a
 * comment every 15 s to keep the connection open. The pages refetch what they show on `change`.
 */
export type ViewerEvent = { event: 'change'; data: ViewerSummary };
