/**
 * tokentap's public library surface. Nothing else is importable (package.json `exports`).
 *
 * @example
 * import { createGateway } from 'tokentap';
 * const gateway = createGateway({ backendUrl: 'http://127.0.0.1:8000', db: './tokentap.db', port: 4000 });
 * await gateway.listen();
 * const session = await gateway.createSession({ groupId: 'task-7' }); // new OpenAI(session.openai)
 */
export { createGateway, type Gateway, type GatewayCloseReport, type GatewayOptions } from './gateway/create-gateway.js';
export type { Recorder, RecorderCounters, RecorderHealth, RecordWorkerHealth, RecordingFailureState } from './gateway/recorder/recorder.js';
export { connectGateway, type ConnectedGateway, type ConnectGatewayOptions } from './gateway/connect-gateway.js';
export type {
  RolloutApi,
  RolloutSession,
  CreateSessionOptions,
  CreatedSession,
  SessionInfo,
  RewardInput,
  RewardOptions,
  GroupInfo,
  PauseOptions,
  GatewayState,
  GatewayEvents,
  GatewayEventName,
  CallEndEvent,
  SessionEndEvent,
  GroupCompleteEvent,
} from './gateway/rollouts/rollout-api.js';
export type { SamplingOverrides } from './gateway/rollouts/rollout-schemas.js';
export { gatewayConfigSchema, type GatewayConfig, type GatewayConfigInput } from './gateway/config/gateway-config.js';
export { TokentapError, isTokentapError } from './core/errors/tokentap-error.js';
export { ERROR_CODES, type ErrorCode } from './core/errors/error-codes.js';
export { SseDecoder, type SseEvent } from './core/sse/sse-decoder.js';
export { encodeSseEvent } from './core/sse/encode-sse-event.js';
export {
  openStore,
  StoreError,
  isStoreError,
  CALL_STATUSES,
  SESSION_END_STATUSES,
  type Store,
  type OpenStoreOptions,
  type CallRow,
  type CallBodies,
  type CallStatus,
  type CallFlag,
  type SessionRow,
  type TokenSource,
  type BeginCallInput,
  type FinishCallInput,
  type StoreStats,
  type RolloutRow,
  type RewardRow,
  type GroupRow,
  type PolicyVersionRow,
  type SessionStatus,
  type SessionEndStatus,
  type SessionEndReason,
  type SessionOrigin,
  type CreateRolloutInput,
  type AddRewardInput,
  type DeclareGroupInput,
  type EndSessionInput,
} from './store/index.js';
export * from './sim/index.js';
export {
  reconstructSession,
  reconstructSessionReport,
  reconstructCalls,
  iterateSamples,
  iterateSessions,
  verifySample,
  countDrift,
  DRIFT_KINDS,
  type Sample,
  type SampleStatus,
  type DriftDiagnostic,
  type DriftKind,
  type ReconstructOptions,
  type ReconstructStrategy,
  type ReconstructSource,
  type RetokenizeCall,
  type DriftTokenizer,
  type SkippedCall,
  type SessionReconstruction,
  type IterateSamplesOptions,
  type IterateSource,
  type VerifyResult,
} from './reconstruct/index.js';
export {
  createRetokenizer,
  retokenizeCall,
  tryRetokenizeCall,
  renderHarmonyChat,
  o200kHarmonySpecialTokens,
  type Retokenizer,
  type RetokenizerOptions,
  type RetokenizedCall,
  type RetokenizeRefusal,
  type RetokenizeRefusalReason,
  type RenderChatOptions,
  type AssistantOutput,
  type TiktokenEncodingName,
} from './reconstruct/retokenize/index.js';
export {
  exportDataset,
  exportSamples,
  computeDatasetStats,
  formatDatasetStats,
  computeAdvantages,
  createExportSummary,
  createRecordWriter,
  parseExportQuery,
  readExportProvenance,
  ExportPathError,
  EXPORT_SCHEMA_VERSION,
  type ExportDatasetOptions,
  type ExportDatasetResult,
  type ExportSamplesOptions,
  type ExportSource,
  type ExportFilters,
  type AdvantageEstimator,
  type AdvantageOptions,
  type ExportSelection,
  type ExportSummary,
  type DatasetStats,
  type RecordWriter,
  type ExportProvenance,
} from './export/index.js';
export {
  createTrainerAdapter,
  TRAINER_FORMATS,
  isAdapterSkip,
  type TrainerAdapter,
  type TrainerFormatInfo,
  type ColumnSpec,
  type ColumnType,
  type ExportRow,
  type ExportSample,
  type Conversation,
  type ConversationMessage,
} from './trainer-adapters/index.js';
