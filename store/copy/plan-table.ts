import type Database from 'better-sqlite3';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import type { PgDatabase } from '../postgres/pg-database.js';
import { COPY_TABLES, type CopyTable } from './copy-tables.js';

/**
 * How one table's rows go from SQLite to PostgreSQL, read from both schemas rather than written down a second time:
 * every SQLite column has its PostgreSQL namesake, and the PostgreSQL side has no other column but the one taking
 * SQLite's rowid (sessions.position). Where the types differ the value is converted: `stop_reason` (ANY in SQLite:
 * a stop string or a token id) is bound as JSON text for its `jsonb` column, so which of the two it was survives.
 */
export interface TablePlan {
  table: CopyTable;
  /** SQLite: the page key, the columns in `targetColumns` order (the key aside), then the parent's key if any */
  selectList: string;
  /** the FROM clause: the table as `t`, joined to itself for the parent's key when rows reference others */
  fromClause: string;
  targetColumns: string[];
  /** per target column: bound as JSON text and cast to jsonb */
  jsonb: boolean[];
  /** the row's key is written as the first target column (the rowid into sessions.position) */
  writesKey: boolean;
  /** a target column is GENERATED ALWAYS: the insert says OVERRIDING SYSTEM VALUE to keep the source's values */
  overriding: boolean;
  /** identity columns, whose sequences are moved past the copied values */
  identityColumns: string[];
}

interface PgColumn {
  column_name: string;
  data_type: string;
  identity_generation: string | null;
}

/**
 * The plan of every table the two schemas have, in copy order; refuses (STORE_COPY_REFUSED) a source with a table
 * this copy does not know, or a table that one side lacks or whose columns differ between the two.
 *
 * @example const plans = planTables(sqlite, pg); // plans[0].table.name === 'groups'
 */
export function planTables(source: Database.Database, target: PgDatabase): TablePlan[] {
  const known = new Set(COPY_TABLES.map((table) => table.name));
  const sourceTables = source.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).pluck().all() as string[];
  const unknown = sourceTables.filter((name) => !known.has(name));
  if (unknown.length > 0) throw refused(`the SQLite store has tables this tokentap does not copy: ${unknown.join(', ')}`);
  const columns = target.prepare<[string], PgColumn>(
    `SELECT column_name, data_type, identity_generation FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`,
  );
  const plans: TablePlan[] = [];
  for (const table of COPY_TABLES) {
    const names = sourceColumns(source, table.name);
    const targetColumns = columns.all(table.name);
    // a table of a later schema than the two share; one side alone having it is refused below
    if (names.length === 0 && targetColumns.length === 0) continue;
    plans.push(planTable(table, names, targetColumns));
  }
  return plans;
}

function planTable(table: CopyTable, sourceNames: string[], targetColumns: PgColumn[]): TablePlan {
  const byName = new Map(targetColumns.map((column) => [column.column_name, column]));
  const missing = sourceNames.filter((name) => !byName.has(name));
  const extra = targetColumns.map((column) => column.column_name).filter((name) => name !== table.rowidColumn && !sourceNames.includes(name));
  if (targetColumns.length === 0 || missing.length > 0 || extra.length > 0) {
    const detail =
      targetColumns.length === 0
        ? 'PostgreSQL has no such table'
        : sourceNames.length === 0
          ? 'SQLite has no such table'
          : `only SQLite has [${missing.join(', ')}], only PostgreSQL [${extra.join(', ')}]`;
    throw refused(`the table ${table.name} differs between the two schemas (${detail})`);
  }
  const writesKey = table.rowidColumn !== undefined;
  const written = writesKey ? [table.rowidColumn as string, ...sourceNames] : sourceNames;
  const parent = table.selfReference === undefined ? '' : `, parent.${table.key}`;
  return {
    table,
    selectList: `t.${table.key}, ${sourceNames.map((name) => `t."${name}"`).join(', ')}${parent}`,
    fromClause:
      table.selfReference === undefined
        ? `"${table.name}" AS t`
        : `"${table.name}" AS t LEFT JOIN "${table.name}" AS parent ON parent.id = t."${table.selfReference}"`,
    targetColumns: written,
    jsonb: written.map((name) => byName.get(name)?.data_type === 'jsonb'),
    writesKey,
    overriding: targetColumns.some((column) => column.identity_generation === 'ALWAYS'),
    identityColumns: targetColumns.filter((column) => column.identity_generation !== null).map((column) => column.column_name),
  };
}

function sourceColumns(source: Database.Database, table: string): string[] {
  return (source.pragma(`table_info("${table}")`) as Array<{ name: string }>).map((column) => column.name);
}

/** A refusal of the copy (a user's mistake: exit 2), nothing written. */
export function refused(message: string): TokentapError {
  return new TokentapError('STORE_COPY_REFUSED', { message });
}
