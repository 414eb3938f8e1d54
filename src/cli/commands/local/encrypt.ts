// tpa local encrypt: the existing local database, encrypted in place (AES-256).
import { existsSync } from 'node:fs';
import { ConflictError, UsageError } from '../../../errors.js';
import type { Context } from '../../context.js';
import { verb } from '../../verb.js';
import { localDatabase, newDatabaseKeyFor, openOnce } from './database.js';
import { localOnly } from './engine.js';

export const encrypt = verb({
  name: 'encrypt',
  description: 'encrypt the existing local database (AES-256) and seal its journals; its key goes to the OS keychain, or comes from TPA_DB_KEY',
  examples: ['tpa local encrypt'],
  async run(ctx) {
    localOnly(ctx);
    const { file, state } = await localDatabase(ctx);
    if (state.kind === 'absent') throw new UsageError(`there is no local database at ${file} yet`, { hint: 'try: tpa local init --encrypt' });
    if (state.kind === 'encrypted') return sealLeftJournals(ctx, file);
    // Refused while `local serve` holds the data directory, and held while converting so that none starts meanwhile.
    const [{ DataDirLock }, { encryptDatabase }] = await Promise.all([import('../../../client/serve-lock.js'), import('../../../engine/store/db.js')]);
    const lock = await DataDirLock.take(ctx.paths.dataDir, 'local encrypt');
    let keptIn: string;
    let sealed = 0;
    // The journals are sealed too (client/journal-seal.ts), each under its lock, taken before anything
    // changes: a job running now refuses the conversion (exit 4), and none starts meanwhile.
    const journals = await lockedJournals(ctx.paths.dataDir).catch((err) => {
      lock.release();
      throw err;
    });
    try {
      // Opened first as it is: a database from a newer tpa, or not a database, is refused before any key is made.
      await openOnce(ctx).catch(busy(file));
      const made = await newDatabaseKeyFor(ctx);
      keptIn = made.keptIn;
      // Every journal read before anything changes: a damaged one is refused with the database still plain.
      const [{ JournalSeal }, { sealingOf }] = await Promise.all([import('../../../client/journal-seal.js'), import('../../../client/journal.js')]);
      const seal = new JournalSeal(made.key);
      const writes = journals.map(({ path }) => {
        try {
          return sealingOf(path, seal);
        } catch (err) {
          throw new UsageError(`${(err as Error).message}; nothing was changed`, {
            hint: 'move that journal out of the data directory, then run tpa local encrypt again',
          });
        }
      });
      try {
        await encryptDatabase(file, made.key);
      } catch (err) {
        busy(file)(err);
      }
      await openOnce(ctx, { databaseKey: made.key, note: ctx.note });
      sealed = sealEach(writes);
    } finally {
      for (const j of journals) j.lock.release();
      lock.release();
    }
    ctx.note(`encrypt: ${file} is encrypted (AES-256); its key is in ${keptIn}`);
    if (sealed > 0) ctx.note(`encrypt: ${sealed} journal(s) sealed with it`);
    return { data: { database: file, encrypted: true, journals_sealed: sealed } };
  },
});

/**
 * Another process writing to the database (a claim batch, a payment run) holds it past the busy
 * timeout: exit 4, as with `local serve` running, the file unchanged
 * (SQLite changes nothing it cannot lock). Anything else is thrown as it is.
 */
function busy(file: string) {
  return (err: unknown): never => {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')))
      throw new ConflictError(`the local database ${file} is busy: another tpa process is writing to it; nothing was changed`, {
        code: 'database_busy',
        hint: 'let that command end (a claim batch, a payment run, tpa local serve), then run tpa local encrypt again',
      });
    throw err;
  };
}

/** The data directory's journals (those it lists as kept elsewhere, and the fund history, too), each locked; the locks taken are let go if one is in use. */
async function lockedJournals(dataDir: string) {
  const [{ journalPaths }, { historyPath }, { journalsDir }, { JournalLock }] = await Promise.all([
    import('../../../client/job-journals.js'),
    import('../../../client/fund-history.js'),
    import('../../../client/journal.js'),
    import('../../../client/journal-lock.js'),
  ]);
  const paths = [...journalPaths(journalsDir(dataDir)), historyPath(dataDir)].filter((p) => existsSync(p));
  const locked: { path: string; lock: Awaited<ReturnType<typeof JournalLock.take>> }[] = [];
  try {
    for (const path of paths) locked.push({ path, lock: await JournalLock.take(path, 'job') });
  } catch (err) {
    for (const j of locked) j.lock.release();
    if (!(err instanceof ConflictError)) throw err;
    throw new ConflictError(`local encrypt seals every journal with the database: ${err.message.replace(/ Nothing was sent\.$/, '')}; nothing was changed`, {
      code: err.code,
      hint: 'let that job end (or stop it), then run tpa local encrypt again',
    });
  }
  return locked;
}

/**
 * An encrypted database: the journals still holding plain lines (written by a tpa that did not seal
 * them) are sealed with its key, each under its lock; with none, nothing to do (exit 4, as before).
 */
async function sealLeftJournals(ctx: Context, file: string) {
  const [{ findDatabaseKey }, { JournalSeal }, { sealingOf }, { keyProblem }] = await Promise.all([
    import('../../../auth/database-key.js'),
    import('../../../client/journal-seal.js'),
    import('../../../client/journal.js'),
    import('../../../engine/store/cipher.js'),
  ]);
  const key = await findDatabaseKey(ctx.paths.dataDir, ctx.io.env);
  if (!key) throw keyProblem(file, false);
  const seal = new JournalSeal(key);
  const journals = await lockedJournals(ctx.paths.dataDir);
  let sealed = 0;
  try {
    sealed = sealEach(journals.map(({ path }) => sealingOf(path, seal)));
  } finally {
    for (const j of journals) j.lock.release();
  }
  if (sealed === 0) throw new ConflictError(`the local database ${file} is encrypted already; nothing was changed (its journals are sealed too)`);
  ctx.note(`encrypt: ${file} was encrypted already; ${sealed} journal(s) still holding plain lines sealed with its key`);
  return { data: { database: file, encrypted: true, journals_sealed: sealed } };
}

/** Writes each journal's sealed text (a journal with nothing plain has none); how many were sealed. */
function sealEach(writes: readonly ((() => void) | undefined)[]): number {
  let sealed = 0;
  for (const write of writes)
    if (write) {
      write();
      sealed++;
    }
  return sealed;
}
