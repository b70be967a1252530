import type { SqlDatabase } from './sql/sql-database.js';
import type { GatewayInstanceRow, OrphanRecovery } from './types.js';

export interface InstanceQueries {
  register(row: GatewayInstanceRow): void;
  touch(id: string, at: number): void;
  remove(id: string): void;
  recoverOrphans(isLive: (row: GatewayInstanceRow) => boolean): OrphanRecovery;
}

interface InstanceRecord {
  id: string;
  host: string;
  pid: number;
  process_scope: string;
  process_start: string | null;
  started_at: number;
  seen_at: number;
}

/**
 * The gateway processes writing this database (table gateway_instances) and the recovery of calls whose process is
 * gone. Recovery is one IMMEDIATE transaction: no gateway can begin a call between the liveness verdict and the
 * update.
 *
 * @example
 * const instances = createInstanceQueries(database);
 * instances.register(row);
 * instances.recoverOrphans((row) => isInstanceLive(row)); // { calls: 3, instances: ['9f2c...'] }
 */
export function createInstanceQueries(database: SqlDatabase): InstanceQueries {
  const insert = database.prepare(
    `INSERT INTO gateway_instances (id, host, pid, process_scope, process_start, started_at, seen_at)
     VALUES (@id, @host, @pid, @processScope, @processStart, @startedAt, @seenAt)`,
  );
  const touch = database.prepare<[number, string]>(`UPDATE gateway_instances SET seen_at = ? WHERE id = ?`);
  const remove = database.prepare<[string]>(`DELETE FROM gateway_instances WHERE id = ?`);
  const selectAll = database.prepare<[], InstanceRecord>(`SELECT * FROM gateway_instances`);
  // served by the partial index calls_in_progress_by_instance: a few rows, however large the table
  const selectOwners = database.prepare<[], { instance_id: string | null }>(`SELECT DISTINCT instance_id FROM calls WHERE status = 'in_progress'`);
  const markOwned = database.prepare<[string | null]>(
    `UPDATE calls SET status = 'incomplete' WHERE status = 'in_progress' AND instance_id IS NOT DISTINCT FROM ?`,
  );

  const recover = database.transaction((isLive: (row: GatewayInstanceRow) => boolean): OrphanRecovery => {
    const live = new Set<string>();
    const gone: string[] = [];
    for (const record of selectAll.all()) {
      const row = toRow(record);
      if (isLive(row)) live.add(row.id);
      else gone.push(row.id);
    }
    for (const id of gone) remove.run(id);
    let calls = 0;
    const orphaned: (string | null)[] = [];
    for (const { instance_id: owner } of selectOwners.all()) {
      if (owner !== null && live.has(owner)) continue;
      orphaned.push(owner);
      calls += markOwned.run(owner).changes;
    }
    return { calls, instances: [...new Set([...gone, ...orphaned.filter((id): id is string => id !== null)])] };
  });

  return {
    register(row) {
      insert.run({ ...row });
    },
    touch(id, at) {
      touch.run(at, id);
    },
    remove(id) {
      remove.run(id);
    },
    recoverOrphans: (isLive) => recover.immediate(isLive),
  };
}

function toRow(record: InstanceRecord): GatewayInstanceRow {
  return {
    id: record.id,
    host: record.host,
    pid: record.pid,
    processScope: record.process_scope,
    processStart: record.process_start,
    startedAt: record.started_at,
    seenAt: record.seen_at,
  };
}
