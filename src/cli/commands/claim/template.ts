// tpa claim template: a valid FHIR R4 Claim for the seeded contracts, ready to edit and submit.
import { claimTemplate } from '../../../domain/claim-template.js';
import { cptProblem, isoDateProblem, npiProblem } from '../../../domain/validation.js';
import { UsageError, ValidationFailed } from '../../../errors.js';
import type { Context } from '../../context.js';
import { listValue } from '../../options.js';
import { option, verb } from '../../verb.js';

export const template = verb({
  name: 'template',
  description: 'print a valid FHIR R4 Claim for the seeded contracts, ready to edit and submit',
  options: {
    type: option.withDefault('--type <type>', 'professional or institutional', 'professional', { values: ['professional', 'institutional'] }),
    npi: option.text('--npi <npi>', 'billing provider NPI'),
    cpt: option.list('--cpt <code...>', 'CPT codes, one service line each'),
    patient: option.withDefault('--patient <member_id>', 'member id (see `tpa local fixtures`)', 'MBR-1003'),
    serviceDate: option.text('--service-date <date>', 'date of service (default: today)'),
  },
  examples: ['tpa claim template > claim.json', 'tpa claim template --type institutional --cpt 45380 00811 88305 > encounter.json'],
  async run(ctx, _args, opts) {
    const { type, npi } = opts;
    if (type !== 'professional' && type !== 'institutional') throw new UsageError('--type must be professional or institutional');
    const problem = npi === undefined ? undefined : npiProblem(npi);
    if (problem) throw new ValidationFailed(`--npi: ${problem}`);
    const codes = listValue(opts.cpt);
    const bad = codes.map(cptProblem).find(Boolean);
    if (bad) throw new ValidationFailed(`--cpt: ${bad}`);
    const serviceDate = opts.serviceDate ?? (await today(ctx));
    const dateProblem = isoDateProblem(serviceDate);
    if (dateProblem) throw new ValidationFailed(`--service-date: ${dateProblem}`);
    const claim = claimTemplate({ type, npi, cpt: codes, patient: opts.patient, serviceDate });
    // A template is a file's content: JSON whatever the output format.
    ctx.io.stdout.write(`${JSON.stringify(claim, null, 2)}\n`);
  },
});

/** Today: on the embedded engine, its clock's date (it may be frozen or shifted); else this machine's. */
async function today(ctx: Context): Promise<string> {
  if (ctx.profile().env !== 'local') return new Date().toISOString().slice(0, 10);
  const { LocalTransport } = await import('../../../client/local.js');
  const transport = new LocalTransport(ctx.paths.dataDir, ctx.io.env);
  try {
    return (await transport.open()).clock().now.slice(0, 10);
  } finally {
    transport.close();
  }
}
