import { z } from 'zod';

/** The servers a replica may be (docs/backends.md). */
export const BACKEND_FLAVOURS = ['vllm', 'sglang'] as const;

/** A replica id: it names the replica in URLs (`/tokentap/v1/backends/{id}/drain`), metrics labels, logs and the store. */
const BACKEND_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** One entry of `backends` in the config file or the library: `{ id?, flavour, url, models?, key? }`. */
const backendEntrySchema = z.strictObject({
  /** default `<flavour>-<n>`, n counting that flavour's entries from 1 in config order */
  id: z.string().regex(BACKEND_ID, 'a backend id is letters, digits, ".", "_" and "-" (at most 64, starting with a letter or digit)').optional(),
  flavour: z.enum(BACKEND_FLAVOURS),
  /** e.g. http://10.0.0.3:30000 (a trailing /v1 is accepted) */
  url: z.url({ protocol: /^https?$/, error: 'a backend url is http:// or https:// and a host' }),
  /** the model names it serves; empty: what its /v1/models lists at the start-up probe */
  models: z
    .union([z.string(), z.array(z.string().min(1))])
    .transform(splitList)
    .default([]),
  /** its own API key; default the gateway's `backendKey` */
  key: z.string().min(1).optional(),
});

/** An entry of `backends` as written: an object, or the flag form `flavour=url`. */
export type BackendEntryInput = string | z.input<typeof backendEntrySchema>;

/** An entry of `backends` once read: its id given or defaulted. */
export interface BackendEntry {
  id: string;
  flavour: (typeof BACKEND_FLAVOURS)[number];
  url: string;
  models: string[];
  key?: string | undefined;
}

/** `vllm=http://10.0.0.1:8000` (the flag and environment form) -> `{ flavour, url }`; an object passes as it is. */
const backendEntry = z.preprocess((value: BackendEntryInput, context) => {
  if (typeof value !== 'string') return value;
  const match = /^\s*([^=\s]+)\s*=\s*(\S+)\s*$/.exec(value);
  if (match === null) {
    context.addIssue({
      code: 'custom',
      message: `${JSON.stringify(value)} is not FLAVOUR=URL (vllm=http://10.0.0.1:8000, sglang=http://10.0.0.3:30000)`,
    });
    return value;
  }
  return { flavour: match[1], url: match[2] };
}, backendEntrySchema);

/**
 * The `backends` setting: a list of replicas, each `{ id?, flavour, url, models?, key? }` or the string
 * `flavour=url`; a comma-separated string of those is accepted (the flag `--backend`, repeatable, and
 * `TOKENTAP_BACKENDS`). Ids default to `<flavour>-<n>` and must be unique.
 *
 * @example backendsSetting().parse('vllm=http://10.0.0.1:8000,vllm=http://10.0.0.2:8000')
 * // [{ id: 'vllm-1', flavour: 'vllm', url: 'http://10.0.0.1:8000', models: [] }, { id: 'vllm-2', ... }]
 */
export function backendsSetting() {
  return (
    z
      .union([z.string(), z.array(z.union([z.string(), z.record(z.string(), z.unknown())]))])
      // a string may hold several entries: `--backend vllm=http://a,vllm=http://b` and TOKENTAP_BACKENDS
      .transform((value): unknown[] => (typeof value === 'string' ? splitList(value) : value.flatMap(splitEntries)))
      .pipe(z.array(backendEntry))
      .transform(withIds)
      .superRefine((entries, context) => {
        const firstAt = new Map<string, number>();
        entries.forEach((entry, index) => {
          const earlier = firstAt.get(entry.id);
          if (earlier === undefined) firstAt.set(entry.id, index);
          else
            context.addIssue({
              code: 'custom',
              path: [index, 'id'],
              message: `backend id ${JSON.stringify(entry.id)} is also entry ${earlier + 1}'s`,
            });
        });
      }) as unknown as z.ZodType<BackendEntry[], string | BackendEntryInput[]>
  );
}

/** Each entry's id, given or `<flavour>-<n>` (n: its place among the entries of its flavour, from 1). */
function withIds(entries: Array<z.output<typeof backendEntrySchema>>): BackendEntry[] {
  const seen = new Map<string, number>();
  return entries.map((entry) => {
    const n = (seen.get(entry.flavour) ?? 0) + 1;
    seen.set(entry.flavour, n);
    return { ...entry, id: entry.id ?? `${entry.flavour}-${n}` };
  });
}

/** A list item as entries: a string split at commas, an object as it is. */
function splitEntries(item: string | Record<string, unknown>): unknown[] {
  return typeof item === 'string' ? splitList(item) : [item];
}

/** `"a, b"` -> `['a', 'b']`; lists pass as they are. */
function splitList(value: string | string[]): string[] {
  if (typeof value !== 'string') return value;
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
