/**
 * Text the store writes into a TEXT column of its own (not JSON, which JSON.stringify already escapes), made valid
 * Unicode: a lone UTF-16 surrogate becomes U+FFFD. better-sqlite3 encodes one as three bytes that are not UTF-8
 * (CESU-8), and Python's sqlite3 then cannot read the table (issue 12). The gateway refuses such text from clients
 * and flags it from backends; this is the last guard, for every other writer (the library API). A string of
 * one-byte characters, the common case, is answered at once.
 *
 * @example wellFormedText('step-\udc00') // 'step-\ufffd'; wellFormedText(null) // null
 */
export function wellFormedText<T extends string | number | null | undefined>(value: T): T {
  return typeof value === 'string' && !value.isWellFormed() ? (value.toWellFormed() as T) : value;
}
