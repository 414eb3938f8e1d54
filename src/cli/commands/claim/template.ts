// tpa claim template: a valid FHIR R4 Claim for the seeded contracts, ready to edit and submit.
import { claimTemplate } from '../../../domain/claim-template.js';
import { MAX_LINE_CHARGE_CENTS, PROVIDER_ROLES, type ProviderRole } from '../../../domain/fhir-claim.js';
import { formatCentsGrouped, parseTypedAmount } from '../../../domain/money.js';
import { cptProblem, isoDateProblem, npiProblem } from '../../../domain/validation.js';
import { UsageError, ValidationFailed } from '../../../errors.js';
import type { Context } from '../../context.js';
import { listValue } from '../../options.js';
import { option, verb } from '../../verb.js';

export const template = verb({
  name: 'template',
  description: 'print a valid FHIR R4 Claim (or an X12 837P/837I of it) for the seeded contracts, ready to edit and submit',
  options: {
    format: option.withDefault('--format <format>', 'fhir (a FHIR R4 Claim, JSON) or 837 (an X12 837P, or 837I with --type institutional)', 'fhir', {
      values: ['fhir', '837'],
    }),
    type: option.withDefault('--type <type>', 'professional or institutional', 'professional', { values: ['professional', 'institutional'] }),
    npi: option.text('--npi <npi>', 'billing provider NPI'),
    cpt: option.list('--cpt <code...>', 'CPT codes, one service line each'),
    patient: option.withDefault('--patient <member_id>', 'member id (see `tpa local fixtures`)', 'MBR-1003'),
    serviceDate: option.text('--service-date <date>', 'date of service (default: today)'),
    charge: option.text('--charge <usd>', 'the billed charge of each service line, e.g. 2,040.00 (default: a typical charge for its code)'),
    role: option.text(
      '--role <role>',
      "professional: the billing provider's role on the care team (default: its role in the embedded engine's registry, else SURGEON)",
      { values: PROVIDER_ROLES },
    ),
  },
  examples: [
    'tpa claim template > claim.json',
    'tpa claim template --type institutional --cpt 45380 00811 88305 > encounter.json',
    'tpa claim template --npi 1196382455 --cpt 00811 --charge 900.00 > anesthesia.json',
    'for c in 45378 43235; do tpa claim template --cpt $c -o ndjson; done > batch.ndjson',
    'tpa claim template --format 837 --type institutional > claims.837 && tpa claim convert claims.837',
  ],
  async run(ctx, _args, opts) {
    const { type, npi } = opts;
    if (type !== 'professional' && type !== 'institutional') throw new UsageError('--type must be professional or institutional');
    if (opts.format !== 'fhir' && opts.format !== '837') throw new UsageError('--format must be fhir or 837');
    const problem = npi === undefined ? undefined : npiProblem(npi);
    if (problem) throw new ValidationFailed(`--npi: ${problem}`);
    const codes = listValue(opts.cpt);
    const bad = codes.map(cptProblem).find(Boolean);
    if (bad) throw new ValidationFailed(`--cpt: ${bad}`);
    const chargeCents = opts.charge === undefined ? undefined : chargeOption(opts.charge);
    const givenRole = opts.role?.trim().toUpperCase();
    if (givenRole !== undefined && !isRole(givenRole)) throw new UsageError(`--role must be one of ${PROVIDER_ROLES.join(', ')}`);
    if (opts.role !== undefined && type === 'institutional')
      throw new UsageError('--role is for a professional claim: an institutional claim names each care-team role by its code');
    const facts = await localFacts(ctx, type === 'professional' && opts.role === undefined ? npi : undefined, opts.format === '837');
    const serviceDate = opts.serviceDate ?? facts.today;
    const dateProblem = isoDateProblem(serviceDate);
    if (dateProblem) throw new ValidationFailed(`--service-date: ${dateProblem}`);
    const role = (givenRole as ProviderRole | undefined) ?? facts.role;
    const claim = claimTemplate({ type, npi, cpt: codes, patient: opts.patient, serviceDate, role, chargeCents });
    if (opts.format === '837') {
      const { claim837 } = await import('../../../domain/x12-837-write.js');
      const { randomInt } = await import('node:crypto');
      // A new interchange control number for each file: a batch's journal knows an X12 claim by its
      // interchange and CLM01 (docs/x12.md "837 in"), so two templates are two claims.
      // Made today on the engine clock (BHT04 is the claim's created date, never after today).
      const time = new Date().toISOString().slice(11, 16).replace(':', '');
      const isa13 = String(randomInt(1, 1_000_000_000)).padStart(9, '0');
      ctx.stdoutIsDocument = true;
      ctx.io.stdout.write(claim837(claim, { isa13, date: facts.today.replaceAll('-', ''), time, names: facts.names }));
      return;
    }
    // A template is a file's content: JSON whatever the output format, one compact line with -o ndjson.
    ctx.io.stdout.write(ctx.format === 'ndjson' ? `${JSON.stringify(claim)}\n` : `${JSON.stringify(claim, null, 2)}\n`);
  },
});

const isRole = (value: string): value is ProviderRole => (PROVIDER_ROLES as readonly string[]).includes(value);

/** --charge as tpa prints amounts ("2,040.00", "$2,040.00", "2040.5"): cents, above zero; anything else is refused, never rounded. */
function chargeOption(text: string): number {
  const parsed = parseTypedAmount(text);
  if ('problem' in parsed) throw new UsageError(`--charge: ${parsed.problem}`);
  if (parsed.cents === 0 || parsed.cents > MAX_LINE_CHARGE_CENTS)
    throw new UsageError(`--charge: an amount above zero, at most ${formatCentsGrouped(MAX_LINE_CHARGE_CENTS)} (got ${formatCentsGrouped(parsed.cents)})`);
  return parsed.cents;
}

/**
 * Today, and the role of `npi` when asked: on the embedded engine, its clock's date (it may be
 * frozen or shifted) and the role its providers registry holds; else this machine's date and no role.
 */
async function localFacts(
  ctx: Context,
  npi: string | undefined,
  withNames = false,
): Promise<{ today: string; role?: ProviderRole; names?: Record<string, string> }> {
  if (ctx.profile().env !== 'local') return { today: new Date().toISOString().slice(0, 10) };
  const { LocalTransport } = await import('../../../local/transport.js');
  const transport = new LocalTransport(ctx.paths.dataDir, ctx.io.env);
  try {
    const engine = await transport.open();
    const fixtures = npi === undefined && !withNames ? undefined : engine.fixtures();
    const providers = (fixtures?.providers ?? []) as { npi: string; role: string; name: string }[];
    const role = npi === undefined ? undefined : providers.find((p) => p.npi === npi)?.role;
    // The names an 837's NM1 segments carry beside the ids (the engine reads the ids).
    const names = withNames
      ? Object.fromEntries([
          ...providers.map((p) => [p.npi, p.name]),
          ...((fixtures?.members ?? []) as { member_id?: string; memberId?: string; name: string }[]).map((m) => [m.member_id ?? m.memberId, m.name]),
        ])
      : undefined;
    return { today: engine.clock().now.slice(0, 10), ...(role !== undefined && isRole(role) ? { role } : {}), ...(names ? { names } : {}) };
  } finally {
    transport.close();
  }
}
