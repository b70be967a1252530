import type Database from 'better-sqlite3';
import type { CopyKey } from './copy-tables.js';
import type { TablePlan } from './plan-table.js';

/** One page of a table, read from SQLite and shaped for PostgreSQL. */
export interface CopyPage {
  /** values in `plan.targetColumns` order, JSON text for jsonb columns; parents written ahead of their page first */
  rows: unknown[][];
  /** the key of the page's last row: the next page starts after it */
  lastKey: CopyKey;
  /** the page's own rows (parents written ahead aside) */
  count: number;
}

/** How much one page holds: whichever of the two is reached first (one row always fits, however large). */
export interface PageLimits {
  rows: number;
  bytes: number;
}

/**
 * Reads a table page after page in key order (keyset, so a page costs the same at the start and the end of a
 * multi-GB table), each page bounded by rows and bytes so memory stays flat. A row whose self-referenced row comes
 * in a later page (copy-tables.ts `selfReference`) brings that row, and its own such parents, into this page.
 *
 * @example
 * const read = createPageReader(snapshot.database, plan, { rows: 500, bytes: 16 << 20 });
 * for (let page = read(null); page !== null; page = read(page.lastKey)) write(page);
 */
export function createPageReader(database: Database.Database, plan: TablePlan, limits: PageLimits): (after: CopyKey | null) => CopyPage | null {
  const { selectList, fromClause, table } = plan;
  const select = (where: string): Database.Statement =>
    database.prepare(`SELECT ${selectList} FROM ${fromClause} ${where} ORDER BY t.${table.key} LIMIT ?`).raw(true);
  const first = select('');
  const next = select(`WHERE t.${table.key} > ?`);
  const byKey = database.prepare(`SELECT ${selectList} FROM ${fromClause} WHERE t.${table.key} = ?`).raw(true);
  const maxRows = Math.max(1, limits.rows);
  const hasParent = table.selfReference !== undefined;
  const columns = plan.targetColumns.length;

  /** the target's values of a source row ([key, ...columns, parent key?]) */
  function toValues(row: unknown[]): unknown[] {
    const values = row.slice(plan.writesKey ? 0 : 1, (plan.writesKey ? 0 : 1) + columns);
    return values.map((value, index) => (plan.jsonb[index] === true && value !== null ? JSON.stringify(value) : value));
  }

  /** rows this page references that come after it, and the rows those reference */
  function parentsAhead(rows: unknown[][], lastKey: number): unknown[][] {
    const inPage = new Set(rows.map((row) => row[0] as number));
    const ahead: unknown[][] = [];
    let pending = rows;
    while (pending.length > 0) {
      const found: unknown[][] = [];
      for (const row of pending) {
        const parentKey = row[row.length - 1] as number | null;
        if (parentKey === null || parentKey <= lastKey || inPage.has(parentKey)) continue;
        inPage.add(parentKey);
        found.push(byKey.get(parentKey) as unknown[]);
      }
      ahead.push(...found);
      pending = found;
    }
    return ahead;
  }

  return (after) => {
    const rows: unknown[][] = [];
    let bytes = 0;
    const iterator = (after === null ? first.iterate(maxRows) : next.iterate(after, maxRows)) as IterableIterator<unknown[]>;
    for (const row of iterator) {
      rows.push(row);
      bytes += rowBytes(row);
      if (bytes >= limits.bytes) break;
    }
    const last = rows[rows.length - 1];
    if (last === undefined) return null;
    const lastKey = last[0] as CopyKey;
    const ordered = hasParent ? parentsFirst([...parentsAhead(rows, lastKey as number), ...rows]) : rows;
    return { rows: ordered.map(toValues), lastKey, count: rows.length };
  };
}

/**
 * The rows ordered so that a row's parent, when among them, comes before it: the writer may split a page into
 * several statements, and PostgreSQL checks a foreign key at the end of each.
 */
function parentsFirst(rows: unknown[][]): unknown[][] {
  const byKey = new Map(rows.map((row) => [row[0] as number, row]));
  const written = new Set<number>();
  const ordered: unknown[][] = [];
  for (const row of rows) {
    const chain: unknown[][] = [];
    for (let at: unknown[] | undefined = row; at !== undefined && !written.has(at[0] as number);) {
      written.add(at[0] as number);
      chain.push(at);
      const parentKey = at[at.length - 1] as number | null;
      at = parentKey === null ? undefined : byKey.get(parentKey);
    }
    ordered.push(...chain.reverse());
  }
  return ordered;
}

function rowBytes(row: unknown[]): number {
  let bytes = 0;
  for (const value of row) {
    if (Buffer.isBuffer(value)) bytes += value.length;
    else if (typeof value === 'string') bytes += value.length;
    else bytes += 8;
  }
  return bytes;
}
