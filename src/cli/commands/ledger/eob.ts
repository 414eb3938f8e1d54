// tpa ledger eob: the member's explanation of benefits of one decided encounter, a FHIR R4
// ExplanationOfBenefit in the CARIN Blue Button profiles (docs/api-resources.md "Explanation of benefits"),
// made here from the ledger detail and the settlement record, over either transport. On stdout, or
// into --out, written whole or not at all, 0600 (it names the member).
import type { EobTransfer } from '../../../domain/fhir-eob.js';
import { closedClaimWords, isClosedStatus } from '../../../domain/ledger.js';
import { ConflictError, NetworkError, NotFoundError, PendingError, UsageError } from '../../../errors.js';
import { folderProblem, writeWhole } from '../../out-file.js';
import { argument, option, verb } from '../../verb.js';

export const eob = verb({
  name: 'eob',
  description: "the member's explanation of benefits of a decided encounter, denials included: a FHIR R4 ExplanationOfBenefit (CARIN Blue Button)",
  args: { encounterId: argument.required('<encounter_id>', 'the encounter: its id (external_claim_id of the claim) or its number, ENC-2026-000002') },
  options: {
    out: option.text(
      '--out <file>',
      'write the ExplanationOfBenefit into this file (whole or not at all, 0600) instead of stdout; an existing file is kept unless --force',
    ),
    force: option.flag('--force', 'with --out: replace the file if it exists'),
  },
  fields: [
    'resourceType',
    'id',
    'meta',
    'identifier',
    'status',
    'type',
    'subType',
    'use',
    'patient',
    'billablePeriod',
    'created',
    'insurer',
    'provider',
    'payee',
    'outcome',
    'disposition',
    'careTeam',
    'supportingInfo',
    'diagnosis',
    'insurance',
    'item',
    'adjudication',
    'total',
    'payment',
  ],
  examples: ['tpa ledger eob ENC-2026-000002', 'tpa ledger eob enc_3b302036a412ed8b301f --out member-eob.json'],
  async run(ctx, { encounterId }, opts) {
    // stdout is a FHIR resource: a service's error body never goes there, whatever the output format.
    ctx.stdoutIsDocument = true;
    if (opts.force && opts.out === undefined) throw new UsageError('--force goes with --out: it replaces the file --out names');
    if (ctx.shape && opts.out !== undefined) throw new UsageError('--out writes the whole document: --json, --jq and --template shape stdout; give one');
    if (opts.out !== undefined) {
      const problem = folderProblem(opts.out);
      if (problem) throw new UsageError(`cannot write ${opts.out}: ${problem}; nothing was written`);
    }
    const client = await ctx.client();
    const { resolveEncounter } = await import('../../../client/encounter-ref.js');
    const { EobError, explanationOfBenefit } = await import('../../../domain/fhir-eob.js');
    const id = await resolveEncounter(client, encounterId);
    const detail = (await client.ledgerDetail(id)).body;
    // A claim a corrected claim closed is final, not pending: exit 4 (wrong state), naming what closed it.
    const status = detail.encounter.status;
    if (isClosedStatus(status)) {
      const replacedBy = (detail.encounter as { replaced_by?: string | null }).replaced_by ?? null;
      throw new ConflictError(
        `encounter ${id} is closed: ${closedClaimWords({ status, replacedBy })}; it has no explanation of benefits${replacedBy ? ` (its replacement ${replacedBy} has one once decided)` : ''}; nothing written`,
        { code: 'claim_closed', ...(replacedBy ? { hint: `its replacement: tpa ledger eob ${replacedBy}` } : {}) },
      );
    }
    // The latest transfer, when one was made: its arrival is the payment's date.
    const transfer = detail.reconciliation.settlement_record_id
      ? await client.settlement(id).then(
          (r) => (r.status === 200 ? (r.body as EobTransfer) : null),
          (err: unknown) => (err instanceof NotFoundError ? null : Promise.reject(err)),
        )
      : null;
    let resource: Record<string, unknown>;
    try {
      resource = explanationOfBenefit(detail, transfer);
    } catch (err) {
      if (!(err instanceof EobError)) throw err;
      if (err.kind === 'undecided') throw new PendingError(err.message, { hint: `see where it stands: tpa ledger show ${id}` });
      if (err.kind === 'unbalanced') throw new ConflictError(`encounter ${id}: ${err.message}; no explanation of benefits written`, { code: 'eob_unbalanced' });
      throw new NetworkError(`encounter ${id}: the service's answer cannot be written as an explanation of benefits: ${err.message}`, {
        code: 'answer_unusable',
      });
    }
    // One record, for --json <fields>, --jq and --template (cli/shape.ts).
    if (ctx.shape) return { data: resource };
    const text = ctx.format === 'ndjson' ? `${JSON.stringify(resource)}\n` : `${JSON.stringify(resource, null, 2)}\n`;
    if (opts.out === undefined) {
      ctx.io.stdout.write(text);
      return;
    }
    await writeWhole(opts.out, text, opts.force === true);
    ctx.note(`wrote ${opts.out}: the explanation of benefits of ${detail.encounter.encounter_number}`);
  },
});
