// The audit log (migration 12): a hash chain of records, appended in the transaction of each
// money-moving or irreversible action. Named queries; hashing and verifying are domain/audit.ts's.
import type { StoredAudit } from '../../domain/audit.js';
import { Conflict } from '../errors.js';
import type { Db } from './db.js';

/** The last record's number and hash, if any. */
export function lastAuditRecord(db: Db): { seq: number; hash: string } | undefined {
  return db.prepare('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1').get() as { seq: number; hash: string } | undefined;
}

export function insertAuditRecord(
  db: Db,
  r: { seq: number; at: string; type: string; subject: string; dataJson: string; prevHash: string; hash: string; actor: string },
): void {
  db.prepare('INSERT INTO audit_log (seq, at, type, subject, data_json, prev_hash, hash, actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
    r.seq,
    r.at,
    r.type,
    r.subject,
    r.dataJson,
    r.prevHash,
    r.hash,
    r.actor,
  );
}

const RECORD_COLUMNS = 'seq, at, type, subject, data_json, prev_hash, hash, actor';

export interface AuditFilter {
  from?: string;
  to?: string;
  type?: string;
}

/** The records in order, filtered by time (`at` on or after `from`, on or before `to`'s day) and type; every record with no filter. */
export function auditRecordsWhere(db: Db, f: AuditFilter): Iterable<StoredAudit> {
  const where: string[] = [];
  const params: Record<string, string> = {};
  if (f.from) where.push('at >= @from'), (params.from = f.from);
  if (f.to) where.push('at < @to'), (params.to = `${f.to}~`);
  if (f.type) where.push('type = @type'), (params.type = f.type);
  return db
    .prepare(`SELECT ${RECORD_COLUMNS} FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq`)
    .iterate(params) as Iterable<StoredAudit>;
}

/** Where the chain began to record payouts, reconciliations and AEOB changes (migration 16). */
export function auditDeepFrom(db: Db): { seq: number; encounter_rowid: number; settlement_rowid: number } {
  const v = db.prepare(`SELECT value FROM settings WHERE key = 'audit_deep_from'`).pluck().get() as string | undefined;
  if (v === undefined) return { seq: 0, encounter_rowid: 0, settlement_rowid: 0 };
  let from: unknown;
  try {
    from = JSON.parse(v);
  } catch {
    from = undefined;
  }
  const whole = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  const f = from as Record<string, unknown> | undefined;
  if (typeof f !== 'object' || f === null || !whole(f.seq) || !whole(f.encounter_rowid) || !whole(f.settlement_rowid))
    throw new Conflict(
      "the database's record of where the audit chain begins (setting audit_deep_from) is damaged: it was changed outside tpa, and which rows the chain covers cannot be said",
      { code: 'audit_boundary_damaged' },
    );
  return f as { seq: number; encounter_rowid: number; settlement_rowid: number };
}

/**
 * The setting recorded_until and the latest time the database's rows record (the times the
 * triggers and migration 17 that keep it take it from): the first may never pass the second.
 */
export function recordedTimes(db: Db): { setting: string | undefined; rows: string } {
  const setting = db.prepare(`SELECT value FROM settings WHERE key = 'recorded_until'`).pluck().get() as string | undefined;
  const rows = db
    .prepare(
      `SELECT COALESCE(MAX(t), '') FROM (
        SELECT MAX(at) AS t FROM audit_log
        UNION ALL SELECT MAX(timestamp) FROM history_entries
        UNION ALL SELECT MAX(submitted_at) FROM encounters
        UNION ALL SELECT MAX(completed_at) FROM encounters
        UNION ALL SELECT MAX(initiated_at) FROM settlements
        UNION ALL SELECT MAX(completed_at) FROM settlements
        UNION ALL SELECT MAX(failed_at) FROM settlements
        UNION ALL SELECT MAX(reconciled_at) FROM settlements
        UNION ALL SELECT MAX(created_at) FROM api_keys
        UNION ALL SELECT MAX(finalized_at) FROM rate_schedules)`,
    )
    .pluck()
    .get() as string;
  return { setting, rows };
}
