// The database's identity (migration 23): made with the file, and made anew only by a restore,
// which makes the database a new one (docs/local-data.md "Backups").
import type { Db } from './db.js';

export interface DatabaseIdentity {
  id: string;
  created_at: string;
}

export function databaseIdentity(db: Db): DatabaseIdentity | null {
  const value = db.prepare(`SELECT value FROM settings WHERE key = 'database'`).pluck().get() as string | undefined;
  return value === undefined ? null : (JSON.parse(value) as DatabaseIdentity);
}

/**
 * A new identity for a database that a restore puts in place: the journals of jobs sent to the
 * database it was copied from (claims, releases it may not hold any more) are then history for it
 * (jobs/journal.ts otherDatabase), never continued as if their sends had reached it. The audit
 * chain does not cover it. A database without one (older than migration 23) gains one when migrated.
 *
 * With it, each encounter not funded yet gets a new trace id: an encounter's first transfer takes
 * its trace id (docs/money-funding.md "Funding"), and the database the backup was taken from may have
 * funded it since under that id, so a release after the restore would repeat the id of another
 * release (docs/local-data.md "Backups"). Drawn at random, as long as the ids newId makes (tr_ and 20
 * hex); not in the audit chain.
 */
export function renewDatabaseIdentity(db: Db): void {
  db.prepare(
    `UPDATE settings SET value = json_object('id', 'db_' || lower(hex(randomblob(10))), 'created_at', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
     WHERE key = 'database'`,
  ).run();
  db.prepare(
    `UPDATE encounters SET processor_trace_id = 'tr_' || lower(hex(randomblob(10)))
     WHERE NOT EXISTS (SELECT 1 FROM settlements s WHERE s.encounter_id = encounters.id)`,
  ).run();
}
