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
    const made = opts.encrypt ? await newDatabaseKeyFor(ctx) : undefined;
    await openOnce(ctx, made ? { note: ctx.note, databaseKey: made.key, createEncrypted: true } : undefined);
    ctx.note(`init: created ${file}${made ? `, encrypted (AES-256); its key is in ${made.keptIn}` : ''}`);
    return { data: { database: file, created: true, encrypted: made !== undefined } };
  },
});
