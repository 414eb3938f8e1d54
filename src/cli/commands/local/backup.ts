// tpa local backup: a consistent copy of the local database, taken while `local serve` writes to it.
import { UsageError } from '../../../errors.js';
import type { TableTools } from '../../../render/output.js';
import { argument, option, verb } from '../../verb.js';
import { localDatabase } from './database.js';
import { localOnly, withEngine } from './engine.js';
import { backupTarget, copySummary, databaseKeyOf } from './backup-files.js';

export const backup = verb({
  name: 'backup',
  description:
    'a consistent copy of the local database, taken while local serve runs: written whole (0600), checked (integrity, audit chain); an encrypted database gives an encrypted backup, under the same key',
  args: { file: argument.required('<file>', 'the backup to write, outside the data directory') },
  options: { force: option.flag('--force', 'replace <file> if it exists') },
  examples: ['tpa local backup tpa-backup.sqlite', 'tpa local backup "tpa-$(date +%F).sqlite" --force'],
  async run(ctx, args, opts) {
    localOnly(ctx);
    const { file: source, state } = await localDatabase(ctx);
    if (state.kind === 'absent') throw new UsageError(`there is no local database at ${source} yet: nothing to back up`);
    const target = backupTarget(ctx, args.file, opts.force === true);
    const key = await databaseKeyOf(ctx, source);
    // The engine opens the database as every command does (its key, its checks, an upgrade); the copy reads one snapshot of it.
    // The data directory's last X12 control number goes with it (docs/local-data.md "Backups").
    const { lastControlNumber } = await import('../../../jobs/remit.js');
    const controlNumber = lastControlNumber(ctx.paths.dataDir);
    const facts = await withEngine(ctx, (e) => e.backup(target, key, opts.force === true, controlNumber), {
      note: ctx.note,
      ...(key ? { databaseKey: key } : {}),
    });
    const { statSync } = await import('node:fs');
    const data = { backup: target, bytes: statSync(target).size, ...copySummary(facts) };
    ctx.note(`backup: ${target} written (${data.bytes} bytes${facts.encrypted ? ', encrypted with the database key' : ''})`);
    return {
      data,
      table: (t: TableTools) =>
        t.keyValues([
          ['Backup', target],
          ['Size', `${data.bytes} bytes`],
          ['Encrypted', facts.encrypted ? 'yes (the data directory key)' : 'no'],
          ['Encounters', String(facts.encounters)],
          ['Ledger entries', String(facts.entries)],
          ['Audit head', `${facts.audit.seq} ${facts.audit.hash}`],
        ]),
    };
  },
});
