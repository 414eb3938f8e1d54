// What the verbs of `tpa local` share about its database: the file, its state, a new key for it, and
// how it is replaced (reset, restore).
import type { EngineStorage } from '../../../local/transport.js';
import type { Context } from '../../context.js';
import { openEngine } from './engine.js';

/** Opens the local database once, as `storage` says (creating, upgrading or checking it), and closes it. */
export async function openOnce(ctx: Context, storage: EngineStorage = { note: ctx.note }): Promise<void> {
  const transport = await openEngine(ctx, storage);
  await transport.open();
  transport.close();
}

/** A new key for an encrypted database, kept where docs/local-data.md "The data directory" says (after checking that the cipher package is there). */
export async function newDatabaseKeyFor(ctx: Context): Promise<{ key: Buffer; keptIn: string }> {
  const [{ cipherSqlite }, { newDatabaseKey }] = await Promise.all([import('../../../engine/store/cipher.js'), import('../../../auth/database-key.js')]);
  cipherSqlite(); // missing, said before a key is made
  return newDatabaseKey(ctx.paths.dataDir, ctx.io.env);
}

/** The local database's file and whether it is absent, plain or encrypted. */
export async function localDatabase(ctx: Context) {
  const [{ databaseFile }, { databaseFileState }] = await Promise.all([import('../../../engine/engine.js'), import('../../../engine/store/cipher.js')]);
  const file = databaseFile(ctx.paths.dataDir);
  return { file, state: databaseFileState(file) };
}

/**
 * The local database replaced (`local reset`, `local restore`): refused while `local serve` holds
 * the data directory, and held while `replace` runs so that none starts meanwhile. Once it has
 * replaced the file, the journal of single claims goes: it remembers what was sent to the database
 * replaced (batch and payment-run journals name the database they were sent to, and say so); then
 * `after`, still holding the data directory.
 */
export async function replacingDatabase<R, T>(
  ctx: Context,
  by: 'local reset' | 'local restore',
  replace: (file: string) => Promise<R>,
  after: (replaced: R) => Promise<T>,
): Promise<T> {
  const [{ file }, { DataDirLock }, { singleJournalPath }, { rmSync }] = await Promise.all([
    localDatabase(ctx),
    import('../../../local/serve-lock.js'),
    import('../claim/submit-one.js'),
    import('node:fs'),
  ]);
  const lock = await DataDirLock.take(ctx.paths.dataDir, by);
  try {
    const replaced = await replace(file);
    rmSync(singleJournalPath(ctx), { force: true });
    return await after(replaced);
  } finally {
    lock.release();
  }
}
