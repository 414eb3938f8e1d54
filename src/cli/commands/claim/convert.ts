// tpa claim convert: the FHIR R4 Claims an X12 837 becomes, printed and not sent, so that an
// operator can look before sending (docs/x12.md "837 in"). Each claim is checked as `claim submit`
// would check it; one that would not be sent is not printed, its problems go to stderr with their
// places (`file.837: ST 0001, CLM P1, SV1 #2: …`), and the exit code is 2.
import { UsageError } from '../../../errors.js';
import type { X12FhirClaim } from '../../../domain/x12-837.js';
import { argument, fieldsOf, verb } from '../../verb.js';

export const convert = verb({
  name: 'convert',
  description: 'print the FHIR R4 Claims of X12 837 files (837P, 837I) without sending them; problems on stderr with their segments',
  args: { paths: argument.variadic('<paths...>', 'X12 837 files (*.837, *.x12, *.edi, or any file starting with ISA), or folders of them') },
  // Each FHIR Claim is a record: --json <fields>, --jq and --template shape them a claim at a time.
  fields: fieldsOf<X12FhirClaim>({
    resourceType: true,
    contained: true,
    identifier: true,
    status: true,
    type: true,
    use: true,
    patient: true,
    billablePeriod: true,
    created: true,
    insurer: true,
    provider: true,
    priority: true,
    related: true,
    facility: true,
    careTeam: true,
    supportingInfo: true,
    diagnosis: true,
    procedure: true,
    insurance: true,
    item: true,
    total: true,
  }),
  examples: [
    'tpa claim convert claims.837   # one FHIR Claim a line (ndjson)',
    'tpa claim convert claims.837 -o json > bundle.json   # one FHIR Bundle (collection)',
    `tpa claim convert claims.837 --jq '.[] | [.identifier[0].value, .total.value] | @tsv'   # each claim's CLM01 and charge`,
    'tpa claim convert claims.837 > export.ndjson && tpa claim submit export.ndjson --wait   # the same claims, sent',
  ],
  async run(ctx, { paths }) {
    if (ctx.formatChosen && ctx.format !== 'ndjson' && ctx.format !== 'json')
      throw new UsageError(`claim convert prints FHIR: -o ndjson (one Claim a line, the default) or -o json (one Bundle); not ${ctx.format}`);
    const { checkPaths } = await import('./submit-sources.js');
    checkPaths(paths, ctx.io.stdinIsTTY);
    if (paths.includes('-')) throw new UsageError('claim convert reads X12 files: name the file (an 837 is read twice: its envelopes first)');
    const { convertX12 } = await import('./convert-run.js');
    return convertX12(ctx, paths, ctx.formatChosen && ctx.format === 'json' ? 'json' : 'ndjson');
  },
});
