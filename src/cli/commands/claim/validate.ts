// tpa claim validate: claims checked offline with the service's own rules; nothing is sent. It reads
// what `claim submit` reads (the same readers): one claim is said valid or refused as it always was,
// many are checked each (check-batch.ts).
import { patientSaid } from '../../../domain/dependent.js';
import { ValidationFailed } from '../../../errors.js';
import { argument, option, verb } from '../../verb.js';
import { claimSummary, type EngineCheck, engineChecker, machineToday, validateOneClaim } from './claim-check.js';

export const validate = verb({
  name: 'validate',
  description:
    "check claims offline with the service's rules (what claim submit reads), and on the local profile what the engine would do with each (contract, rates, member, duplicates); nothing is sent; exit 2 names each bad field and where",
  args: {
    paths: argument.variadic(
      '<paths...>',
      'Claim JSON files, FHIR Bundles, NDJSON files (one Claim a line), X12 837 files (*.837, *.x12, *.edi, or any file starting with ISA), folders of them, or - for stdin',
    ),
  },
  options: {
    ack: option.text(
      '--ack <dir>',
      "write each 837's acknowledgments into this folder: TA1, 999 and 277CA, X12 and JSON (<file>.999, .999.json, …); - prints them on stdout (one 837)",
    ),
  },
  fields: ['source', 'valid', 'errors', 'type', 'provider_npi', 'member_id', 'lines', 'cpt_codes', 'total_charges', 'preauthorizations', 'engine_check'],
  examples: [
    'tpa claim validate claim.json',
    'cat claim.json | tpa claim validate -',
    'tpa claim validate claims.837   # an X12 837: each claim with its place (ST, CLM, segment)',
    'tpa claim validate claims/ batch.ndjson -o ndjson   # one line per claim; invalid ones on stderr as file:line:column',
    'tpa claim validate claims.837 --ack .   # and its 999 and 277CA (claims.837.999, claims.837.277ca, and .json forms)',
  ],
  async run(ctx, { paths }, opts) {
    const { checkPaths, peekClaims } = await import('./submit-sources.js');
    checkPaths(paths, ctx.io.stdinIsTTY);
    const { first, several, all } = await peekClaims(paths, () => ctx.io.stdinStream(), ctx.note);
    if (!first) throw new ValidationFailed(`no claim in ${paths.join(', ')}`);
    if (opts.ack !== undefined) {
      // The acknowledgments of each 837: its claims checked as many are, each verdict noted.
      const { AckRecorder, ackTarget, withoutStdout } = await import('./acks.js');
      const target = ackTarget(opts.ack, paths)!;
      const acks = new AckRecorder(ctx, target, 'validate');
      const { checkClaims } = await import('./check-batch.js');
      const out = await checkClaims(target.kind === 'stdout' ? withoutStdout(ctx) : ctx, acks.pass(all()), 'validate', (item, valid, errors, byEngine) =>
        acks.checked(item, valid, errors, byEngine),
      );
      await acks.finish(new Date().toISOString());
      return out;
    }
    // An 837's claims are checked as many are, one row each with their X12 places, whatever their number.
    if (several || first.identity !== undefined || first.errors !== undefined) {
      const { checkClaims } = await import('./check-batch.js');
      return checkClaims(ctx, all(), 'validate');
    }
    // One claim: valid (its summary) or refused (exit 2, every bad field and where it is).
    const item = first;
    // The rules that need only the clock: by the engine's (asked below) on the local profile, else by this machine's.
    const parsed = validateOneClaim(item, ctx.profile().env === 'local' ? {} : { today: machineToday(ctx.io.env) });
    // Then what the engine would do with it (local profile): contract, rates, member, duplicates.
    const checker = await engineChecker(ctx);
    let engine: EngineCheck;
    try {
      engine = checker.check(item.text);
    } finally {
      checker.close();
    }
    const where = item.source === '-' ? 'stdin' : item.source;
    if (engine.checked && !engine.accepted)
      throw new ValidationFailed(`${where}: ${engine.says} (the embedded engine's rules; nothing was sent)`, { details: engine.errors });
    const summary = { valid: true, ...claimSummary(parsed), preauthorizations: parsed.preauthorizations, engine_check: engine };
    return {
      data: summary,
      table: (t) =>
        // A claim the engine would not pay in full is not shown as a plain success.
        (engine.checked && engine.disposition !== 'APPROVED'
          ? `${t.c.red('!')} ${item.source} is a valid ${parsed.type} claim that the engine would not pay in full\n`
          : `${t.c.green('✓')} ${item.source} is a valid ${parsed.type} claim\n`) +
        t.keyValues([
          ['Provider NPI', parsed.providerNpi],
          ['Member', patientSaid(parsed)],
          ['Lines', `${parsed.lines.length} (${summary.cpt_codes.join(', ')})`],
          ['Charges', t.amount(summary.total_charges)],
          engine.checked ? ['Engine (local)', engine.says] : ['Not checked', engine.not_checked.replace(/^not checked here: /, '')],
        ]),
    };
  },
});
