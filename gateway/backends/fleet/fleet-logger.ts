import type { FastifyBaseLogger } from 'fastify';

/** The part of the gateway's pino logger a fleet writes to. */
export type FleetLogger = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

/** A library embedding is quiet unless asked (STYLE.md 7): the logger of a fleet given none. */
export const SILENT_FLEET_LOGGER: FleetLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
