// `claim validate` of many claims and `claim submit --dry-run`: every claim the readers
// (submit-sources.ts, the ones `claim submit` uses) find is checked with the engine's rules, each
// invalid one named on stderr with file:line:column and field, nothing sent and nothing journaled
// (docs/claim-batches.md "Checking claims before sending them"). Rows stream: memory does not grow with
// the number of claims.
import { formatCentsGrouped } from '../../../domain/money.js';
import { EXIT } from '../../../errors.js';
import { count } from '../../../render/format.js';
import { tableTools, type CommandOutput } from '../../../render/output.js';
import { oneLine, screen } from '../../../render/screen.js';
import { recordWriter } from '../../listing.js';
import type { Context } from '../../context.js';
import { terminalWidth } from '../../io.js';
import { placeErrors } from '../../../domain/json-position.js';
import { type CheckedClaim, checkClaim, type EngineCheck, engineChecker, errorLine, machineToday, sameIdentitySaid } from './claim-check.js';
import { noteText } from './skipped.js';
import type { ClaimText } from './submit-sources.js';

/** A flat row for csv: the errors and the codes as text. */
function csvRow(c: CheckedClaim & { engine_check?: EngineCheck }): Record<string, unknown> {
  const { engine_check: engine, ...rest } = c;
  return {
    ...rest,
    cpt_codes: c.cpt_codes?.join(' ') ?? null,
    errors: c.errors.map((e) => errorLine(c.source, e)).join('; '),
    // What the engine would do, in its words (the same column on every row, empty when not asked).
    engine: engine === undefined ? null : engine.checked ? engine.says : engine.not_checked,
  };
}

/** Whether the command's profile is the local engine; a dry run names no profile it needs, so one it cannot find is not local. */
function onLocalProfile(ctx: Context): boolean {
  try {
    return ctx.profile().env === 'local';
  } catch {
    return false;
  }
}

const claims = (n: number) => `${count(n)} claim${n === 1 ? '' : 's'}`;

/**
 * Checks every claim. `validate`: one row per claim (valid or not). `dry-run`: the claims that would
 * be sent, as they would be sent (json, ndjson), or their summary rows (csv). On a terminal, a
 * summary on stdout; elsewhere, the counts on stderr. Exit 2 when any claim is invalid.
 */
export async function checkClaims(
  ctx: Context,
  items: AsyncIterable<ClaimText>,
  mode: 'validate' | 'dry-run',
  /** Each claim's verdict; `byEngine`: valid as read, refused by the engine's rules (the member, the contract). */
  onChecked?: (item: ClaimText, valid: boolean, errors: CheckedClaim['errors'], byEngine: boolean) => void,
): Promise<CommandOutput> {
  const table = ctx.format === 'table';
  const writer = table ? undefined : recordWriter<unknown>(ctx, 'every claim was checked');
  let valid = 0;
  let invalid = 0;
  let chargesCents = 0;
  const sameIdentity = sameIdentitySaid();
  // validate: each valid claim is then put to the engine's rules on the local profile (what it would
  // refuse is invalid here too; what it would deny or pend is said on its row), each alone.
  const checker = mode === 'validate' ? await engineChecker(ctx) : undefined;
  // Dates after today are refused as the service refuses them: on the local profile by the engine's
  // own clock (validate asks the engine; `local clock set` may have moved it), elsewhere by this
  // machine's (the service's cannot be asked).
  const today = onLocalProfile(ctx) ? undefined : machineToday(ctx.io.env);
  let notChecked: string | undefined;
  // Valid claims the engine would deny, pend or pay in part: counted, and each said on stderr.
  let notInFull = 0;
  try {
    for await (const item of items) {
      const { checked: first, parsed: firstParsed } = checkClaim(sameIdentity(item), today ? { today } : {});
      let checked: CheckedClaim & { engine_check?: EngineCheck } = first;
      let parsed = firstParsed;
      if (parsed && checker) {
        const engine = checker.check(item.text);
        if (engine.checked && !engine.accepted) {
          parsed = undefined;
          checked = { ...first, valid: false, errors: placeErrors(engine.errors, item.locate, item.segmentOf) };
        } else {
          checked = { ...first, engine_check: engine };
          if (engine.checked && engine.disposition !== 'APPROVED') {
            notInFull++;
            ctx.note(noteText(screen(`${oneLine(item.source)}: ${engine.says}`)));
          }
        }
        if (!engine.checked) notChecked = engine.not_checked;
      }
      onChecked?.(item, parsed !== undefined, checked.errors, firstParsed !== undefined && parsed === undefined);
      if (parsed) {
        valid++;
        chargesCents += parsed.totalChargeCents;
      } else {
        invalid++;
        for (const e of checked.errors) ctx.note(screen(errorLine(checked.source, e)));
      }
      if (!writer) continue;
      if (mode === 'validate') writer.write([ctx.format === 'csv' ? csvRow(checked) : checked]);
      else if (parsed) writer.write([ctx.format === 'csv' ? csvRow(checked) : item.value]);
    }
  } finally {
    writer?.end();
    checker?.close();
  }
  if (notChecked) ctx.note(notChecked);
  const exitCode = invalid > 0 ? EXIT.USAGE : EXIT.OK;
  await summary(ctx, mode, { valid, invalid, chargesCents, notInFull: checker && !notChecked ? notInFull : undefined });
  return { exitCode };
}

/**
 * The counts of a check: on a terminal, a summary on stdout; elsewhere, on stderr. `notInFull`: the
 * valid claims the engine would not pay in full, when the engine checked them all.
 */
async function summary(
  ctx: Context,
  mode: 'validate' | 'dry-run',
  { valid, invalid, chargesCents, notInFull }: { valid: number; invalid: number; chargesCents: number; notInFull: number | undefined },
): Promise<void> {
  const total = valid + invalid;
  if (ctx.format !== 'table') {
    ctx.note(
      mode === 'validate'
        ? `${claims(total)}: ${count(valid)} valid, ${count(invalid)} invalid${notInFull !== undefined ? `; ${count(notInFull)} the engine would not pay in full` : ''}`
        : `would send ${claims(valid)} (charges ${formatCentsGrouped(chargesCents)})${invalid > 0 ? `; ${count(invalid)} invalid, not sent` : ''}; nothing was sent`,
    );
    return;
  }
  const t = await tableTools(ctx.color, terminalWidth(ctx.io.stdout));
  const counts = t.table(
    ['Claims', { header: 'Count', align: 'right' }],
    [
      [mode === 'validate' ? 'Valid' : 'Valid, would be sent', count(valid)],
      [mode === 'validate' ? 'Invalid' : 'Invalid, would not be sent', count(invalid)],
      ...(notInFull !== undefined ? [['Valid, not paid in full (engine)', count(notInFull)]] : []),
    ],
  );
  const head = mode === 'validate' ? `${claims(total)} checked` : `Would send ${claims(valid)}; nothing was sent (-o ndjson prints them as they would be sent)`;
  ctx.io.stdout.write(`${head}\n${counts}\n${t.keyValues([['Charges', formatCentsGrouped(chargesCents)]])}\n`);
}
