// tpa local init: create the local engine database now, encrypted if asked (it is otherwise created on first use).
import { ConflictError } from '../../../errors.js';
import { option, verb } from '../../verb.js';
import { localDatabase, newDatabaseKeyFor, openOnce } from './database.js';
import { localOnly } from './engine.js';

export const init = verb({
  name: 'init',
  description: 'create the local engine database now (it is otherwise created on first use)',
  options: { encrypt: option.flag('--encrypt', 'encrypt it (AES-256); its key goes to the OS keychain, or comes from TPA_DB_KEY') },
  examples: ['tpa local init --encrypt', 'TPA_DB_KEY=$(openssl rand -hex 32) tpa local init --encrypt'],
  async run(ctx, _args, opts) {
    localOnly(ctx);
    const { file, state } = await localDatabase(ctx);
    if (state.kind !== 'absent') {
      if (opts.encrypt && state.kind !== 'encrypted') {
        throw new ConflictError(`the local database ${file} exists and is not encrypted; nothing was changed`, { hint: 'try: tpa local encrypt' });
      }
      await openOnce(ctx);
      ctx.note(`init: ${file} exists already${state.kind === 'encrypted' ? ' (encrypted)' : ''}; nothing was changed`);
      return { data: { database: file, created: false, encrypted: state.kind === 'encrypted' } };
    }
    // A data directory encrypted before (a reset kept its local.sqlite.encrypted): its new database
    // is made with the key it had (db.ts openDatabase), never with a new one that would replace it.
    const { knownEncrypted } = await import('../../../engine/store/cipher.js');
    if (knownEncrypted(file)) {
      await openOnce(ctx);
      ctx.note(`init: created ${file}, encrypted (AES-256) with the data directory's key, as before`);
      return { data: { database: file, created: true, encrypted: true } };
    }
    if (!opts.encrypt) {
      await openOnce(ctx);
      ctx.note(`init: created ${file}`);
      return { data: { database: file, created: true, encrypted: false } };
    }
    // Journals left in the data directory (a reset keeps them) are sealed with the new database, as
    // tpa local encrypt seals them (one way for both): an encrypted data directory holds no plain journal.
    let keptIn = '';
    const { encryptWithJournals } = await import('./encrypt.js');
    const done = await encryptWithJournals(ctx, {
      key: async () => {
        const made = await newDatabaseKeyFor(ctx);
        keptIn = made.keptIn;
        return made.key;
      },
      change: (key) => openOnce(ctx, { note: ctx.note, databaseKey: key, createEncrypted: true }),
      interrupted: (sealed) => `tpa: interrupted: ${file} was created encrypted and ${sealed} journal(s) already there sealed with it first; stopping now`,
    });
    ctx.note(`init: created ${file}, encrypted (AES-256); its key is in ${keptIn}`);
    if (done.sealed > 0) ctx.note(`init: ${done.sealed} journal(s) already in the data directory sealed with it`);
    return { data: { database: file, created: true, encrypted: true, journals_sealed: done.sealed } };
  },
});
