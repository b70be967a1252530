/**
 * The gateway's surface: everything the library (the root index.ts) and the CLI use of gateway/ comes from here,
 * so its folders can move without reaching past it.
 *
 * @example
 * const gateway = createGateway({ backendUrl: 'http://127.0.0.1:8000', db: './tokentap.db' }); // from the root index.ts or cli/
 */
export { createGateway, type Gateway, type GatewayCloseReport, type GatewayOptions } from './create-gateway.js';
export { connectGateway, type ConnectedGateway, type ConnectGatewayOptions } from './connect-gateway.js';
export { createLogger, type CreateLoggerOptions } from './create-logger.js';
export { gatewayConfigSchema, type GatewayConfig, type GatewayConfigInput } from './config/gateway-config.js';
export type { GatewayLoggerOption } from './create-gateway-logger.js';
export { publicBindWarnings } from './security/public-bind-warnings.js';
export type { Recorder, RecorderCounters, RecorderHealth, RecordWorkerHealth, RecordingFailureState } from './recorder/recorder.js';
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
} from './rollouts/rollout-api.js';
export type { SamplingOverrides } from './rollouts/rollout-schemas.js';
export { harnessResponseBody, type HarnessResponseBody, type RecordedAnswer } from './calls/harness-response-body.js';
