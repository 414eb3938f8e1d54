// tpa local encrypt: the existing local database, encrypted in place (AES-256).
import { ConflictError, UsageError } from '../../../errors.js';
import { verb } from '../../verb.js';
import { localDatabase, newDatabaseKeyFor, openOnce } from './database.js';
import { localOnly } from './engine.js';

export const encrypt = verb({
  name: 'encrypt',
  description: 'encrypt the existing local database (AES-256); its key goes to the OS keychain, or comes from TPA_DB_KEY',
  examples: ['tpa local encrypt'],
  async run(ctx) {
    localOnly(ctx);
    const { file, state } = await localDatabase(ctx);
    if (state.kind === 'absent') throw new UsageError(`there is no local database at ${file} yet`, { hint: 'try: tpa local init --encrypt' });
    if (state.kind === 'encrypted') throw new ConflictError(`the local database ${file} is encrypted already; nothing was changed`);
    // Refused while `local serve` holds the data directory, and held while converting so that none starts meanwhile.
    const [{ DataDirLock }, { encryptDatabase }] = await Promise.all([import('../../../client/serve-lock.js'), import('../../../engine/store/db.js')]);
    const lock = await DataDirLock.take(ctx.paths.dataDir, 'local encrypt');
    let keptIn: string;
    try {
      // Opened first as it is: a database from a newer tpa, or not a database, is refused before any key is made.
      await openOnce(ctx);
      const made = await newDatabaseKeyFor(ctx);
      keptIn = made.keptIn;
      encryptDatabase(file, made.key);
      await openOnce(ctx, { databaseKey: made.key, note: ctx.note });
    } finally {
      lock.release();
    }
    ctx.note(`encrypt: ${file} is encrypted (AES-256); its key is in ${keptIn}`);
    return { data: { database: file, encrypted: true } };
  },
});
