import { z } from 'zod';

const TEXT_FORM = /^\s*(\d+(?:\.\d+)?)\s*(?:,\s*(\d+)\s*)?$/;

const settingsSchema = z.strictObject({
  /** tokens added per second to each bucket */
  requestsPerSecond: z.number().positive(),
  /** the bucket's size; default `requestsPerSecond` rounded up (at least 1) */
  burst: z.number().int().min(1).optional(),
});

/**
 * The `rateLimit` setting: `{ requestsPerSecond, burst }` in the config file and the library, or the same as text
 * for the flag and the environment: `"5"` (5 per second, bursts of 5) or `"5,20"` (5 per second, bursts of 20).
 *
 * @example rateLimitSetting().parse('5,20') // { requestsPerSecond: 5, burst: 20 }
 */
export function rateLimitSetting() {
  const text = z
    .string()
    .regex(TEXT_FORM, 'use REQUESTS_PER_SECOND or REQUESTS_PER_SECOND,BURST, e.g. "5,20"')
    .transform((value) => {
      const [, rate, burst] = TEXT_FORM.exec(value) as RegExpExecArray;
      return { requestsPerSecond: Number(rate), ...(burst === undefined ? {} : { burst: Number(burst) }) };
    });
  return z.union([settingsSchema, text.pipe(settingsSchema)]).transform(({ requestsPerSecond, burst }) => ({
    requestsPerSecond,
    burst: burst ?? Math.max(1, Math.ceil(requestsPerSecond)),
  }));
}
