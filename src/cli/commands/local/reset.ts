// tpa local reset: delete the local engine database; the next command re-creates and re-seeds it.
import { confirm } from '../../prompt.js';
import { verb } from '../../verb.js';
import { replacingDatabase } from './database.js';
import { localOnly } from './engine.js';

export const reset = verb({
  name: 'reset',
  description: 'delete the local engine database; it is re-created and re-seeded on next use (asks; --yes to skip; refused while local serve runs)',
  examples: ['tpa local reset', 'tpa local reset --yes'],
  async run(ctx) {
    localOnly(ctx);
    const [{ removeDatabase }, { knownEncrypted }] = await Promise.all([import('../../../engine/store/db.js'), import('../../../engine/store/cipher.js')]);
    return replacingDatabase(
      ctx,
      'local reset',
      async (file) => {
        await confirm(ctx, `Delete every claim and change in ${file} and start again from the seed?`);
        return { file, existed: removeDatabase(file) };
      },
      async ({ file, existed }) => {
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
      },
    );
  },
});
