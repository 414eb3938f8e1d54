// tpa local encrypt: the existing local database, encrypted in place (AES-256).
import { existsSync } from 'node:fs';
import { ConflictError, UsageError } from '../../../errors.js';
import type { Context } from '../../context.js';
import { verb } from '../../verb.js';
import { localDatabase, newDatabaseKeyFor, openOnce } from './database.js';
import { localOnly } from './engine.js';
import { removeLeftovers } from '../../../files/write-whole.js';

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
    const [{ DataDirLock }, { encryptDatabase }] = await Promise.all([import('../../../local/serve-lock.js'), import('../../../engine/store/db.js')]);
    const lock = await DataDirLock.take(ctx.paths.dataDir, 'local encrypt');
    let keptIn = '';
    let done: SealedJournals;
    try {
      done = await encryptWithJournals(ctx, {
        key: async () => {
          // Opened first as it is: a database from a newer tpa, or not a database, is refused before any key is made.
          await openOnce(ctx).catch(busy(file));
          const made = await newDatabaseKeyFor(ctx);
          keptIn = made.keptIn;
          return made.key;
        },
        change: async (key) => {
          try {
            await encryptDatabase(file, key);
          } catch (err) {
            busy(file)(err);
          }
          await openOnce(ctx, { databaseKey: key, note: ctx.note });
        },
        interrupted: (sealed) =>
          `tpa: interrupted: the database ${file} was encrypted whole first (the conversion does not stop midway), and ${sealed} journal(s) sealed with it (nor does the sealing); stopping now`,
      });
    } finally {
      lock.release();
    }
    ctx.note(`encrypt: ${file} is encrypted (AES-256); its key is in ${keptIn}`);
    if (done.sealed > 0) ctx.note(`encrypt: ${done.sealed} journal(s) sealed with it`);
    leftoversNote(ctx, done.leftovers);
    return { data: { database: file, encrypted: true, journals_sealed: done.sealed } };
  },
});

/** What sealing the journals of a data directory did: journals sealed, leftovers of an earlier sealing removed. */
export interface SealedJournals {
  sealed: number;
  leftovers: number;
}

/**
 * The one way a data directory's journals are sealed with its database (tpa local encrypt, tpa
 * local init --encrypt, and tpa local encrypt again after one was stopped): every journal (the fund
 * history, and those kept elsewhere, too) locked, then read, before anything changes (a job running
 * now refuses it, exit 4; a damaged journal, exit 2; nothing changed); then, with SIGINT, SIGTERM
 * and SIGHUP held (one that comes is acted on once every journal is sealed, `interrupted` saying
 * so), `change` (the database encrypted or made) and each journal replaced whole by its sealed text;
 * last, the temporary files an earlier sealing stopped by kill -9 left beside them are removed.
 */
export async function encryptWithJournals(
  ctx: Context,
  steps: { key: () => Promise<Buffer>; change: (key: Buffer) => Promise<void>; interrupted: (sealed: number) => string },
): Promise<SealedJournals> {
  const [{ JournalSeal }, { sealingOf }, { holdSignals }] = await Promise.all([
    import('../../../jobs/journal-seal.js'),
    import('../../../jobs/journal.js'),
    import('../../../engine/store/db.js'),
  ]);
  const journals = await lockedJournals(ctx.paths.dataDir);
  let held: Awaited<ReturnType<typeof holdSignals>> | undefined;
  let sealed = 0;
  let finished = false;
  try {
    const key = await steps.key();
    const seal = new JournalSeal(key);
    // Every journal read before anything changes: a damaged one is refused with the database as it was.
    const writes = journals.map(({ path }) => {
      try {
        return sealingOf(path, seal);
      } catch (err) {
        throw new UsageError(`${(err as Error).message}; nothing was changed`, {
          hint: 'move that journal out of the data directory, then run tpa local encrypt again',
        });
      }
    });
    held = holdSignals();
    await steps.change(key);
    for (const write of writes)
      if (write) {
        write();
        sealed++;
      }
    // A sealing stopped midway (kill -9, a power cut) leaves a journal's temporary file, partly sealed, partly not.
    const leftovers = removeLeftovers(journals.map((j) => j.path));
    finished = true;
    return { sealed, leftovers };
  } finally {
    for (const j of journals) j.lock.release();
    await held?.release(() => (finished ? steps.interrupted(sealed) : 'tpa: interrupted'));
  }
}

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
    import('../../../jobs/job-journals.js'),
    import('../../../jobs/fund-history.js'),
    import('../../../jobs/journal.js'),
    import('../../../jobs/journal-lock.js'),
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
 * them, or left by a local encrypt that was stopped) are sealed with its key, each under its lock,
 * and the temporary files of a sealing that was stopped removed; with none, nothing to do (exit 4, as before).
 */
async function sealLeftJournals(ctx: Context, file: string) {
  const [{ findDatabaseKey }, { keyProblem }] = await Promise.all([import('../../../auth/database-key.js'), import('../../../engine/store/cipher.js')]);
  const key = await findDatabaseKey(ctx.paths.dataDir, ctx.io.env);
  if (!key) throw keyProblem(file, false);
  const done = await encryptWithJournals(ctx, {
    key: async () => key,
    change: async () => undefined,
    interrupted: (sealed) => `tpa: interrupted: ${sealed} journal(s) sealed with the key of ${file} first (the sealing does not stop midway); stopping now`,
  });
  if (done.sealed === 0 && done.leftovers === 0)
    throw new ConflictError(`the local database ${file} is encrypted already; nothing was changed (its journals are sealed too)`);
  if (done.sealed > 0) ctx.note(`encrypt: ${file} was encrypted already; ${done.sealed} journal(s) still holding plain lines sealed with its key`);
  leftoversNote(ctx, done.leftovers);
  return { data: { database: file, encrypted: true, journals_sealed: done.sealed } };
}

function leftoversNote(ctx: Context, leftovers: number): void {
  if (leftovers > 0) ctx.note(`encrypt: ${leftovers} temporary file(s) left by a sealing that was stopped removed`);
}
