import type { FastifyBaseLogger } from 'fastify';
import { isInMemory } from '../../store/open-store.js';
import type { Store } from '../../store/types.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { CallRecorder } from './call-recorder.js';
import type { Recorder } from './recorder.js';
import { recordWorkerUrl } from './record-worker-url.js';
import { WorkerCallRecorder } from './worker-call-recorder.js';

export interface CreateRecorderOptions {
  config: Pick<GatewayConfig, 'db' | 'recordFailure' | 'recordInWorker' | 'dbMaxBytes' | 'dbQueryTimeoutMs'>;
  /** the gateway's store: written here when recording stays on this thread, read by everyone either way */
  store: Store;
  /** the store was passed in by the caller: it is an object on this thread and cannot move to a worker */
  storeGiven: boolean;
  logger: FastifyBaseLogger;
}

/**
 * Picks where the store is written: on a worker thread (`recordInWorker`, the default) when the gateway opened a
 * database file itself; on the gateway's thread otherwise (a store passed in, ':memory:', which another connection
 * cannot see, or sources never built, so no compiled worker exists).
 *
 * @example const recorder = createRecorder({ config, store, storeGiven: false, logger })
 */
export function createRecorder(options: CreateRecorderOptions): Recorder {
  const { config, store, logger } = options;
  const onThread = (): Recorder => new CallRecorder(store, config.recordFailure, logger);
  if (!config.recordInWorker) return onThread();
  if (options.storeGiven || isInMemory(config.db)) {
    logger.debug('recording on the gateway thread: the store is passed in or in memory');
    return onThread();
  }
  const workerUrl = recordWorkerUrl();
  if (workerUrl === null) {
    logger.warn('recording on the gateway thread: no compiled recording worker (run npm run build)');
    return onThread();
  }
  return new WorkerCallRecorder({
    path: config.db,
    policy: config.recordFailure,
    log: logger,
    workerUrl,
    maxBytes: config.dbMaxBytes,
    queryTimeoutMs: config.dbQueryTimeoutMs,
  });
}
