// What `local backup` and `local restore` share: where a backup may be written, the database key,
// and what a checked copy is said to hold.
import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import type { CopyFacts } from '../../../engine/services/backup.js';
import { UsageError } from '../../../errors.js';
import type { Context } from '../../context.js';
import { existsRefusal, folderProblem } from '../../out-file.js';

/** Whether `path` (its folder resolved through links) is the data directory or inside it. */
function insideDataDir(ctx: Context, path: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  const rel = relative(real(ctx.paths.dataDir), resolve(real(dirname(path)), path.split(sep).at(-1)!));
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep));
}

/**
 * The file a backup goes to: in a folder that exists, outside the data directory (a backup there
 * goes with it: a reset, a lost disk), not a folder, and not a file already there unless `force`.
 */
export function backupTarget(ctx: Context, file: string, force: boolean): string {
  const target = resolve(file);
  const folder = folderProblem(target);
  if (folder) throw new UsageError(`${folder}: nothing was written`);
  if (insideDataDir(ctx, target))
    throw new UsageError(`${target} is inside the data directory ${ctx.paths.dataDir}: a backup there is lost with it; write it elsewhere`);
  if (existsSync(target)) {
    if (statSync(target).isDirectory()) throw new UsageError(`${target} is a folder: name the backup file`);
    if (!force) throw existsRefusal(target, 'add --force to replace it, or name another file');
  }
  return target;
}

/** The key of the database `file` when it is encrypted (TPA_DB_KEY, else the keychain's entry of the data directory), else undefined. */
export async function databaseKeyOf(ctx: Context, file: string): Promise<Buffer | undefined> {
  const [{ databaseFileState, keyProblem }, keys] = await Promise.all([import('../../../engine/store/cipher.js'), import('../../../auth/database-key.js')]);
  const { key } = await keys.databaseKeyOf(ctx.paths.dataDir, file, ctx.io.env);
  if (!key && databaseFileState(file).kind === 'encrypted') throw keyProblem(file, false);
  return key;
}

/** What a checked copy holds, as backup and restore print it (no key, ever). */
export function copySummary(facts: CopyFacts) {
  return {
    encrypted: facts.encrypted,
    schema_version: facts.schemaVersion,
    encounters: facts.encounters,
    ledger_entries: facts.entries,
    audit_records: facts.audit.records,
    audit_head: facts.audit.hash,
    audit_head_seq: facts.audit.seq,
  };
}
