// The database's identity (migration 23): made once with the file, never changed.
import type { Db } from './db.js';

export interface DatabaseIdentity {
  id: string;
  created_at: string;
}

export function databaseIdentity(db: Db): DatabaseIdentity | null {
  const value = db.prepare(`SELECT value FROM settings WHERE key = 'database'`).pluck().get() as string | undefined;
  return value === undefined ? null : (JSON.parse(value) as DatabaseIdentity);
}
