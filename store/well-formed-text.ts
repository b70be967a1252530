/**
 * Text the store writes into a TEXT column of its own (not JSON, which JSON.stringify already escapes), made valid
 * Unicode that both engines keep as it is: a lone UTF-16 surrogate becomes U+FFFD, and so does U+0000. better-sqlite3
 * encodes a lone surrogate as three bytes that are not UTF-8 (CESU-8), and Python's sqlite3 then cannot read the
 * table (issue 12); PostgreSQL's TEXT cannot hold U+0000 at all (its jsonb not even escaped), so SQLite gets the same
 * text, and a store copied between them reads the same (issue 17). The gateway refuses such text from clients and
 * flags it from backends; this is the last guard, for every other writer (the library API). A string of one-byte
 * characters without U+0000, the common case, is answered at once.
 *
 * @example wellFormedText('step-\udc00') // 'step-\ufffd'; wellFormedText('a\u0000') // 'a\ufffd'; wellFormedText(null) // null
 */
export function wellFormedText<T extends string | number | null | undefined>(value: T): T {
  if (typeof value !== 'string') return value;
  const wellFormed = value.isWellFormed() ? value : value.toWellFormed();
  return (wellFormed.includes('\u0000') ? wellFormed.replaceAll('\u0000', '\ufffd') : wellFormed) as T;
}
