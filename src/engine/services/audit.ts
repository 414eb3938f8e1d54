// The engine's audit log (migration 12, domain/audit.ts): appended in the transaction of each
// money-moving or irreversible action, walked by `tpa local audit verify` and `list`.
import { auditHash, GENESIS_HASH, verifyChain, type ChainVerdict, type StoredAudit } from '../../domain/audit.js';
import type { Db } from '../store/db.js';

/** Appends a record; the caller's transaction makes it one with the action. Amounts in `data` are in cents. */
export function appendAudit(db: Db, type: string, subject: string, at: string, data: Record<string, unknown>): void {
  const last = db.prepare('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1').get() as { seq: number; hash: string } | undefined;
  const seq = (last?.seq ?? 0) + 1;
  const prev = last?.hash ?? GENESIS_HASH;
  const hash = auditHash(prev, { seq, at, type, subject, data });
  db.prepare('INSERT INTO audit_log (seq, at, type, subject, data_json, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
    seq,
    at,
    type,
    subject,
    JSON.stringify(data),
    prev,
    hash,
  );
}

export function verifyAudit(db: Db): ChainVerdict {
  return verifyChain(db.prepare('SELECT seq, at, type, subject, data_json, prev_hash, hash FROM audit_log ORDER BY seq').iterate() as Iterable<StoredAudit>);
}

export interface AuditFilter {
  from?: string;
  to?: string;
  type?: string;
}

/** The records in order, filtered by time (`at` on or after `from`, on or before `to`'s day) and type. */
export function listAudit(db: Db, f: AuditFilter): Iterable<StoredAudit> {
  const where: string[] = [];
  const params: Record<string, string> = {};
  if (f.from) where.push('at >= @from'), (params.from = f.from);
  if (f.to) where.push('at < @to'), (params.to = `${f.to}~`);
  if (f.type) where.push('type = @type'), (params.type = f.type);
  return db
    .prepare(`SELECT seq, at, type, subject, data_json, prev_hash, hash FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq`)
    .iterate(params) as Iterable<StoredAudit>;
}
