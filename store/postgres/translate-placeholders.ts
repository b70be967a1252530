/**
 * A statement written for better-sqlite3 (`?` positional, `@name` named parameters) as PostgreSQL wants it (`$1`,
 * `$2`, ...), with the order in which to read the bound values. Quoted text ('...', "...") and comments are left
 * alone; `?` is never PostgreSQL's jsonb operator in the store's SQL.
 *
 * @example translatePlaceholders('SELECT * FROM calls WHERE id = @id AND seq > @id') // { text: '... = $1 AND seq > $1', names: ['id'] }
 */
export interface TranslatedStatement {
  text: string;
  /** named parameters in `$n` order (`names[n - 1]`), or null for positional ones */
  names: string[] | null;
  /** how many positional parameters (`?`) the statement takes */
  positional: number;
}

export function translatePlaceholders(source: string): TranslatedStatement {
  const names: string[] = [];
  let positional = 0;
  let text = '';
  let index = 0;
  while (index < source.length) {
    const char = source[index] as string;
    const skipped = skipQuotedOrComment(source, index);
    if (skipped > index) {
      text += source.slice(index, skipped);
      index = skipped;
      continue;
    }
    if (char === '?') {
      positional += 1;
      text += `$${positional}`;
      index += 1;
      continue;
    }
    if (char === '@' && /[A-Za-z_]/.test(source[index + 1] ?? '')) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(index + 1))?.[0] as string;
      if (!names.includes(name)) names.push(name);
      text += `$${names.indexOf(name) + 1}`;
      index += 1 + name.length;
      continue;
    }
    text += char;
    index += 1;
  }
  if (positional > 0 && names.length > 0) throw new Error(`a statement mixes ? and @name parameters: ${source}`);
  return { text, names: names.length > 0 ? names : null, positional };
}

/** The index after a quoted text or comment starting at `index`, or `index` when none starts there. */
function skipQuotedOrComment(source: string, index: number): number {
  const char = source[index];
  if (char === "'" || char === '"') {
    let end = index + 1;
    while (end < source.length) {
      if (source[end] === char) {
        if (source[end + 1] === char)
          end += 2; // a doubled quote inside the text
        else return end + 1;
      } else end += 1;
    }
    return source.length;
  }
  if (char === '-' && source[index + 1] === '-') {
    const end = source.indexOf('\n', index);
    return end === -1 ? source.length : end;
  }
  if (char === '/' && source[index + 1] === '*') {
    const end = source.indexOf('*/', index + 2);
    return end === -1 ? source.length : end + 2;
  }
  return index;
}
