// tpa local audit verify: walk the audit chain (and with --deep, the money tables against it);
// whole is exit 0; the first record that does not verify, or every row that does not agree (a
// count and the first ten), is exit 4.
import type { ChainVerdict } from '../../../../domain/audit.js';
import type { DeepVerdict } from '../../../../engine/services/audit.js';
import { ConflictError, UsageError } from '../../../../errors.js';
import type { TableTools } from '../../../../render/output.js';
import { option, verb } from '../../../verb.js';
import { withEngine } from '../engine.js';

export const verify = verb({
  name: 'verify',
  description: 'walk the chain: whole (count, head hash) with exit 0, or the first record that does not verify, and why, with exit 4',
  options: {
    deep: option.flag(
      '--deep',
      'also check the money tables (encounters, settlements, payouts) against the chain: how many rows and columns disagree and the first ten, exit 4',
    ),
    expectHead: option.text(
      '--expect-head <hash>',
      'a head kept outside the database (tpa local audit head): the chain must still hold it and extend it, else exit 4 (a rewrite with every hash recomputed)',
    ),
  },
  fields: ['whole', 'count', 'head'],
  examples: [
    'tpa local audit verify',
    'tpa local audit verify --deep',
    'tpa local audit verify --expect-head "$(cat /mnt/anchor/tpa-head)"   # a head kept on another machine',
  ],
  async run(ctx, _args, opts) {
    const deep = opts.deep === true;
    const expectHead = opts.expectHead;
    const { isAuditHash } = await import('../../../../domain/audit.js');
    if (expectHead !== undefined && !isAuditHash(expectHead))
      throw new UsageError(`--expect-head: "${expectHead}" is not a head hash (64 lowercase hex digits, as tpa local audit head prints it)`);
    const verdict: ChainVerdict | DeepVerdict = await withEngine(ctx, (e): ChainVerdict | DeepVerdict =>
      deep ? e.auditVerifyDeep(expectHead) : e.auditVerify(expectHead),
    );
    if (!verdict.whole && verdict.seq === null) {
      throw new ConflictError(`the audit chain does not hold the expected head: ${verdict.reason} (${verdict.count} records verify)`, {
        code: 'audit_head_missing',
        body: { whole: false, verified: verdict.count, expected_head: expectHead, reason: verdict.reason },
      });
    }
    if (!verdict.whole) {
      throw new ConflictError(
        `the audit chain breaks at record ${verdict.seq}: ${verdict.reason} (${verdict.count} record${verdict.count === 1 ? '' : 's'} before it verify)`,
        {
          code: 'audit_chain_broken',
          body: { whole: false, verified: verdict.count, broken_at: verdict.seq, reason: verdict.reason },
        },
      );
    }
    if ('disagreements' in verdict && verdict.disagreementCount > 0) {
      const { describeDisagreement } = await import('../../../../domain/audit-deep.js');
      const n = verdict.disagreementCount;
      const shown = verdict.disagreements;
      const asJson = (d: (typeof shown)[number]) => ({
        table: d.table,
        row: d.row,
        column: d.column,
        expected: d.expected,
        found: d.found,
        audit_record: d.seq,
      });
      const more = n - shown.length;
      throw new ConflictError(
        `the audit chain is whole, but the money tables disagree with it in ${n} place${n === 1 ? '' : 's'}:\n${shown
          .map((d) => `  ${describeDisagreement(d)}`)
          .join('\n')}${more > 0 ? `\n  and ${more} more (the first ${shown.length} are named)` : ''}`,
        {
          code: 'audit_tables_disagree',
          body: {
            whole: true,
            tables_agree: false,
            head: verdict.head,
            disagreement_count: n,
            disagreements: shown.map(asJson),
            // The first of them, as --deep named it before it named them all.
            disagreement: asJson(shown[0]!),
          },
        },
      );
    }
    const checked = 'checked' in verdict ? verdict.checked : undefined;
    return {
      data: {
        whole: true,
        count: verdict.count,
        head: verdict.head,
        ...(expectHead !== undefined ? { expected_head: expectHead } : {}),
        ...(checked ? { tables_agree: true, checked } : {}),
      },
      table: (t: TableTools) =>
        `${t.c.green('✓')} the audit chain is whole${checked ? ', and the money tables agree with it' : ''}\n${t.keyValues([
          ['Records', String(verdict.count)],
          ['Head hash', verdict.head],
          ...(expectHead !== undefined ? ([['Expected head', `${expectHead} (held)`]] as [string, string][]) : []),
          ...(checked
            ? ([['Checked', `${checked.encounters} encounters, ${checked.settlements} settlements, ${checked.payouts} payouts`]] as [string, string][])
            : []),
        ])}`,
    };
  },
});
