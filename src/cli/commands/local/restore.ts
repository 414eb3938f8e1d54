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
    'replace the local database with a backup of tpa local backup: checked first (a tpa database, integrity, its money against its audit chain), put in place whole, keys and clients revoked since kept revoked (asks; --yes to skip; refused while local serve runs)',
  args: { file: argument.required('<file>', 'a backup written by tpa local backup') },
  examples: ['tpa local restore tpa-backup.sqlite --yes'],
  async run(ctx, args) {
    localOnly(ctx);
    const [{ existsSync, statSync }, { resolve }, { file }] = await Promise.all([import('node:fs'), import('node:path'), localDatabase(ctx)]);
    const backup = resolve(args.file);
    if (!existsSync(backup) || !statSync(backup).isFile()) throw new UsageError(`${backup} is not a file: nothing was changed`);
    if (backup === resolve(file)) throw new UsageError(`${backup} is the local database itself: name a backup of it`);
    return replacingDatabase(
      ctx,
      'local restore',
      () => restoreInto(ctx, file, backup),
      async ({ key, facts, kept }) => {
        // Opened once as every command opens it: the database made WAL again.
        await openOnce(ctx, { note: ctx.note, ...(key ? { databaseKey: key } : {}) });
        // The backup's last X12 control number: no ISA13 it had written is written again (docs/local-data.md "Backups").
        const { raiseControlNumber } = await import('../../../jobs/remit.js');
        await raiseControlNumber(ctx.paths.dataDir, facts.controlNumber);
        const revoked = kept.keys + kept.clients;
        ctx.note(
          `restore: ${file} is now the backup ${backup} (${facts.encounters} encounters, ${facts.entries} ledger entries; ${revoked} credential${revoked === 1 ? '' : 's'} revoked since the backup kept revoked, ${kept.expiring} key${kept.expiring === 1 ? '' : 's'} rotated out since kept expiring)`,
        );
        const data = {
          restored: backup,
          database: file,
          ...copySummary(facts),
          kept_revoked: { keys: kept.keys, clients: kept.clients },
          kept_expiring: { keys: kept.expiring },
        };
        return {
          data,
          table: (t: TableTools) =>
            t.keyValues([
              ['Restored', backup],
              ['Database', file],
              ['Encounters', String(facts.encounters)],
              ['Ledger entries', String(facts.entries)],
              ['Audit head', `${facts.audit.seq} ${facts.audit.hash}`],
              [
                'Kept revoked',
                `${kept.keys} key${kept.keys === 1 ? '' : 's'}, ${kept.clients} client${kept.clients === 1 ? '' : 's'} (revoked since the backup)`,
              ],
              ['Kept expiring', `${kept.expiring} key${kept.expiring === 1 ? '' : 's'} (rotated out since the backup)`],
            ]),
        };
      },
    );
  },
});

/**
 * The restore itself, under the data directory's lock: the live database held from before the
 * backup is read until the rename (so a command that opens it meanwhile is refused, never confirmed
 * and then lost), the backup copied beside it and every check run on that copy, the question, the
 * revocations carried, the rename. Ctrl-C or SIGTERM before the rename: the copy removed, the
 * database let go as it was, exit 130 or 143.
 */
async function restoreInto(ctx: Context, file: string, backup: string) {
  const [cipher, steps] = await Promise.all([import('../../../engine/store/cipher.js'), import('../../../engine/services/backup.js')]);
  const backupEncrypted = cipher.databaseFileState(backup).kind === 'encrypted';
  const dataDirEncrypted = cipher.databaseFileState(file).kind === 'encrypted' || cipher.knownEncrypted(file) !== undefined;
  if (dataDirEncrypted && !backupEncrypted)
    throw new ConflictError(
      `the data directory ${ctx.paths.dataDir} is encrypted and ${backup} is not: restoring it would keep member data in plain text; nothing was changed`,
      { hint: `to restore it plain on purpose, remove ${cipher.encryptedMarkerFile(file)} first (then tpa local encrypt encrypts it again)` },
    );
  const key = backupEncrypted ? await backupKey(ctx, backup) : undefined;
  const hold = steps.holdForRestore(file, key);
  let tmp: string | undefined;
  let replaced = false;
  const cleanUp = () => {
    if (tmp) steps.removeRestoreCopy(tmp);
    tmp = undefined;
    hold.release(replaced);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (!replaced) cleanUp();
    ctx.note(`interrupted: ${replaced ? `${file} was replaced whole before` : `nothing was replaced; ${file} is as it was`}`);
    process.exit(signal === 'SIGTERM' ? 143 : 130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // A signal that came during a synchronous step is acted on here, before the next one.
  const turn = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
  };
  try {
    tmp = steps.restoreCopy(backup, file);
    await turn();
    // Every check before anything is replaced: a file that is not a whole tpa database leaves the sandbox as it was.
    const facts = steps.checkRestorable(tmp, backup, key);
    await turn();
    await confirm(
      ctx,
      `Replace the local database of ${ctx.paths.dataDir} (${file}) with the backup ${backup} (${facts.encounters} encounters, audit record ${facts.audit.seq})? Everything written since that backup is undone: claims, fund releases, keys and clients created (those revoked since stay revoked).`,
    );
    const kept = steps.prepareRestoreCopy(tmp, key, hold);
    await turn();
    steps.putInPlace(tmp, file);
    replaced = true;
    tmp = undefined;
    if (key && cipher.keyFits(file, key) !== true) cipher.recordEncrypted(file, key);
    return { key, facts, kept };
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    if (replaced) hold.release(true);
    else cleanUp();
  }
}

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
