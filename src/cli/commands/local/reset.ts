// tpa local reset: delete the local engine database; the next command re-creates and re-seeds it.
import { confirm } from '../../prompt.js';
import { verb } from '../../verb.js';
import { localOnly } from './engine.js';

export const reset = verb({
  name: 'reset',
  description: 'delete the local engine database; it is re-created and re-seeded on next use (asks; --yes to skip; refused while local serve runs)',
  examples: ['tpa local reset', 'tpa local reset --yes'],
  async run(ctx) {
    localOnly(ctx);
    const [{ databaseFile }, { removeDatabase }, { knownEncrypted }, { DataDirLock }, { singleJournalPath }, { rmSync }] = await Promise.all([
      import('../../../engine/engine.js'),
      import('../../../engine/store/db.js'),
      import('../../../engine/store/cipher.js'),
      import('../../../client/serve-lock.js'),
      import('../claim/submit-one.js'),
      import('node:fs'),
    ]);
    const file = databaseFile(ctx.paths.dataDir);
    // Refused while `local serve` holds the data directory, and held while deleting so that none starts meanwhile.
    const lock = await DataDirLock.take(ctx.paths.dataDir, 'local reset');
    try {
      await confirm(ctx, `Delete every claim and change in ${file} and start again from the seed?`);
      const existed = removeDatabase(file);
      // The journal of single claims remembers what was sent to this database: a claim sent to the
      // deleted one is new to the next, so it goes with it (batch journals name their own files).
      rmSync(singleJournalPath(ctx), { force: true });
      // Batch and payment-run journals know the database they were sent to (client/journal.ts otherDatabase): the next run says so.
      // An encrypted data directory stays encrypted: its marker is kept, and the next use makes the
      // new database encrypted with the same key (db.ts openDatabase), never plain.
      const encrypted = knownEncrypted(file) !== undefined;
      const anew = encrypted ? 're-created encrypted with the same key (TPA_DB_KEY or the keychain) and re-seeded' : 're-seeded';
      ctx.note(
        existed
          ? `reset: deleted ${file}; it will be ${anew} on next use (a claim batch run again sends anew, saying its journal is history; a payment run of it is not resumed)`
          : `reset: nothing to delete at ${file}${encrypted ? ' (the data directory stays encrypted: a new database is made with its key)' : ''}`,
      );
      return { data: { reset: true, database: file, existed, encrypted } };
    } finally {
      lock.release();
    }
  },
});
