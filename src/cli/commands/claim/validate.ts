// tpa claim validate: a claim checked offline with the service's own rules; nothing is sent.
import { centsToAmount } from '../../../domain/money.js';
import { MAX_CLAIM_BYTES } from '../../../domain/fhir-claim.js';
import { readInput } from '../../options.js';
import { argument, verb } from '../../verb.js';
import { validateClaim } from './claim-check.js';

export const validate = verb({
  name: 'validate',
  description: 'check a claim offline with the same rules as the service; exits 2 naming each bad field',
  args: { file: argument.required('<file>', 'claim JSON file, or - for stdin') },
  examples: ['tpa claim validate claim.json', 'cat claim.json | tpa claim validate -'],
  async run(ctx, { file }) {
    // Unreadable or oversized input is a usage error.
    const parsed = validateClaim(await readInput(ctx, file, 'claim', MAX_CLAIM_BYTES), file);
    const summary = {
      valid: true,
      type: parsed.type,
      provider_npi: parsed.providerNpi,
      member_id: parsed.memberId,
      lines: parsed.lines.length,
      cpt_codes: parsed.lines.map((l) => l.cptCode),
      total_charges: centsToAmount(parsed.totalChargeCents),
      preauthorizations: parsed.preauthorizations,
    };
    return {
      data: summary,
      table: (t) =>
        `${t.c.green('✓')} ${file === '-' ? 'stdin' : file} is a valid ${parsed.type} claim\n` +
        t.keyValues([
          ['Provider NPI', parsed.providerNpi],
          ['Member', parsed.memberId],
          ['Lines', `${parsed.lines.length} (${summary.cpt_codes.join(', ')})`],
          ['Charges', t.amount(summary.total_charges)],
        ]),
    };
  },
});
