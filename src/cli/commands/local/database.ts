// What `local init` and `local encrypt` share: the database file, its state, and a new key for it.
import type { EngineStorage } from '../../../client/local.js';
import type { Context } from '../../context.js';
import { openEngine } from './engine.js';

/** Opens the local database once, as `storage` says (creating, upgrading or checking it), and closes it. */
export async function openOnce(ctx: Context, storage: EngineStorage = { note: ctx.note }): Promise<void> {
  const transport = await openEngine(ctx, storage);
  await transport.open();
  transport.close();
}

/** A new key for an encrypted database, kept where docs/design.md "The data directory" says (after checking that the cipher package is there). */
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
