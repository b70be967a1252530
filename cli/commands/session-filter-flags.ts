import { SESSION_END_STATUSES, type SessionFilter, type SessionStatus } from '../../store/index.js';
import { UsageError } from '../usage-error.js';

/** The parseArgs options of `tokentap sessions`' filters. */
export const SESSION_FILTER_OPTIONS = {
  group: { type: 'string' },
  status: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  'min-reward': { type: 'string' },
  'max-reward': { type: 'string' },
  'has-reward': { type: 'boolean' },
  'front-door': { type: 'string' },
  model: { type: 'string' },
} as const;

export const SESSION_FILTER_HELP = `  --group G           sessions of GRPO group G
  --status S          rollout status: open, ${SESSION_END_STATUSES.join(', ')}
  --since T           last activity (newest call, or creation) at or after T: ISO date or ms since the epoch
  --until T           last activity before T
  --min-reward R      current session reward at least R (sessions without a reward are left out)
  --max-reward R      current session reward at most R
  --has-reward        only sessions with a session reward
  --front-door NAME   sessions with a call through openai-chat, openai-completions, openai-responses or
                      anthropic-messages
  --model NAME        sessions with a call that asked for, or was sent as, model NAME
`;

const STATUSES: readonly SessionStatus[] = ['open', ...SESSION_END_STATUSES];

type FilterValues = {
  [key in keyof typeof SESSION_FILTER_OPTIONS]?: (typeof SESSION_FILTER_OPTIONS)[key]['type'] extends 'boolean' ? boolean : string;
};

/**
 * The store filter the flags ask for; a value that is no status, time or number is a UsageError naming the flag.
 *
 * @example parseSessionFilter({ group: 'task-7', 'min-reward': '0.5' }) // { groupId: 'task-7', minReward: 0.5 }
 */
export function parseSessionFilter(values: FilterValues): SessionFilter {
  const filter: SessionFilter = {};
  if (values.group !== undefined) filter.groupId = values.group;
  if (values.status !== undefined) {
    if (!STATUSES.includes(values.status as SessionStatus))
      throw new UsageError(`--status must be one of ${STATUSES.join(', ')} (got ${JSON.stringify(values.status)})`);
    filter.status = values.status as SessionStatus;
  }
  if (values.since !== undefined) filter.since = parseTime(values.since, '--since');
  if (values.until !== undefined) filter.until = parseTime(values.until, '--until');
  if (filter.since !== undefined && filter.until !== undefined && filter.since >= filter.until)
    throw new UsageError('--since must be before --until');
  if (values['min-reward'] !== undefined) filter.minReward = parseNumber(values['min-reward'], '--min-reward');
  if (values['max-reward'] !== undefined) filter.maxReward = parseNumber(values['max-reward'], '--max-reward');
  if (values['has-reward'] === true) filter.hasReward = true;
  if (values['front-door'] !== undefined) filter.frontDoor = values['front-door'];
  if (values.model !== undefined) filter.model = values.model;
  return filter;
}

/** ms since the epoch, or an ISO 8601 date (`2026-06-01`, `2026-06-01T12:00:00Z`), as `tokentap export --since` */
function parseTime(text: string, flag: string): number {
  const parsed = /^\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(parsed)) throw new UsageError(`${flag} must be an ISO 8601 date or ms since the epoch (got ${JSON.stringify(text)})`);
  return parsed;
}

function parseNumber(text: string, flag: string): number {
  const parsed = text.trim() === '' ? Number.NaN : Number(text);
  if (!Number.isFinite(parsed)) throw new UsageError(`${flag} must be a number (got ${JSON.stringify(text)})`);
  return parsed;
}
