// tpa local restore: the local database replaced by a backup of `tpa local backup`, checked first, put in place whole.
import { AuthError, ConflictError, UsageError } from '../../../errors.js';
import type { TableTools } from '../../../render/output.js';
import type { Context } from '../../context.js';
import { confirm } from '../../prompt.js';
import { argument, verb } from '../../verb.js';
import { copySummary } from './backup-files.js';
import { localDatabase, openOnce, replacingDatabase } from './database.js';
import { localOnly } from './engine.js';

export const restore = verb({
  name: 'restore',
  description:
    'replace the local database with a backup of tpa local backup: checked first (a tpa database, integrity, audit chain), put in place whole (asks; --yes to skip; refused while local serve runs)',
  args: { file: argument.required('<file>', 'a backup written by tpa local backup') },
  examples: ['tpa local restore tpa-backup.sqlite --yes'],
  async run(ctx, args) {
    localOnly(ctx);
    const [{ existsSync, statSync }, { resolve }, cipher, { checkCopy, replaceDatabase }, { file }] = await Promise.all([
      import('node:fs'),
      import('node:path'),
      import('../../../engine/store/cipher.js'),
      import('../../../engine/services/backup.js'),
      localDatabase(ctx),
    ]);
    const backup = resolve(args.file);
    if (!existsSync(backup) || !statSync(backup).isFile()) throw new UsageError(`${backup} is not a file: nothing was changed`);
    if (backup === resolve(file)) throw new UsageError(`${backup} is the local database itself: name a backup of it`);
    return replacingDatabase(
      ctx,
      'local restore',
      async () => {
        const backupEncrypted = cipher.databaseFileState(backup).kind === 'encrypted';
        const dataDirEncrypted = cipher.databaseFileState(file).kind === 'encrypted' || cipher.knownEncrypted(file) !== undefined;
        if (dataDirEncrypted && !backupEncrypted)
          throw new ConflictError(
            `the data directory ${ctx.paths.dataDir} is encrypted and ${backup} is not: restoring it would keep member data in plain text; nothing was changed`,
            {
              hint: `to restore it plain on purpose, remove ${cipher.encryptedMarkerFile(file)} first (then tpa local encrypt encrypts it again)`,
            },
          );
        const key = backupEncrypted ? await backupKey(ctx, backup) : undefined;
        // Every check before anything is replaced: a file that is not a whole tpa database leaves the sandbox as it was.
        const facts = checkCopy(backup, key);
        await confirm(
          ctx,
          `Replace the local database of ${ctx.paths.dataDir} (${file}) with the backup ${backup} (${facts.encounters} encounters, audit record ${facts.audit.seq})? Everything written since that backup is lost.`,
        );
        replaceDatabase(file, backup, key);
        if (key && cipher.keyFits(file, key) !== true) cipher.recordEncrypted(file, key);
        return { key, facts };
      },
      async ({ key, facts }) => {
        // Opened once as every command opens it: an older backup is upgraded now, and the database made WAL again.
        await openOnce(ctx, { note: ctx.note, ...(key ? { databaseKey: key } : {}) });
        ctx.note(`restore: ${file} is now the backup ${backup} (${facts.encounters} encounters, ${facts.entries} ledger entries)`);
        const data = { restored: backup, database: file, ...copySummary(facts) };
        return {
          data,
          table: (t: TableTools) =>
            t.keyValues([
              ['Restored', backup],
              ['Database', file],
              ['Encounters', String(facts.encounters)],
              ['Ledger entries', String(facts.entries)],
              ['Audit head', `${facts.audit.seq} ${facts.audit.hash}`],
            ]),
        };
      },
    );
  },
});

/** The key an encrypted backup is opened with: the data directory's (TPA_DB_KEY, else its keychain entry). */
async function backupKey(ctx: Context, backup: string): Promise<Buffer> {
  const { findDatabaseKey } = await import('../../../auth/database-key.js');
  const key = await findDatabaseKey(ctx.paths.dataDir, ctx.io.env);
  if (!key)
    throw new AuthError(`${backup} is encrypted, and no key was found to open it; nothing was changed`, {
      code: 'database_key_missing',
      hint: 'set TPA_DB_KEY to the key of the database it was taken from (64 hexadecimal digits)',
    });
  return key;
}
