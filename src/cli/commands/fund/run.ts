// tpa fund run: a payment run, every adjudicated, unfunded encounter the filters select, funded once
// each after one review and one confirmation; resumable from its journal. This module selects,
// reviews and confirms; the runner (jobs/payment-run.ts) does the approvals (docs/jobs.md "Payment runs").
import type { Command } from 'commander';
import type { TpaClient } from '../../../client/client.js';
import type { LedgerFilters } from '../../../client/types.js';
import type { DatabaseIdentity } from '../../../jobs/journal.js';
import type { ApprovalOutcome, RunJournal, RunPlan } from '../../../jobs/payment-run.js';
import { withCsvAmounts } from '../../../domain/csv.js';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { authorizationPrefix } from '../../../domain/funding.js';
import { formatCentsGrouped, parseTypedAmount } from '../../../domain/money.js';
import { ConflictError, UsageError, ValidationFailed } from '../../../errors.js';
import type { CommandOutput } from '../../../render/output.js';
import type { Context } from '../../context.js';
import { terminalWidth } from '../../io.js';
import { checkedPeriodFilters, givenArgs, periodSpec, suggestCommand } from '../../options.js';
import { ask } from '../../prompt.js';
import { counter } from '../../status-line.js';
import { fieldsOf, type OptionValues, option, verb } from '../../verb.js';
import { holdNotes, moneyTarget, promptTag, writeTargetLine } from '../../where.js';
import { codeReferenceLine, engineDay, shapeWarning, typeToConfirm } from './confirm.js';
import { ENCOUNTER_FIELDS, encounterColumns, encounterRow, reviewData, reviewOf, reviewText } from './run-review.js';
import { needsWithoutTerminal } from './without-terminal.js';

/** An --auth-code-prefix, typed or asked for: each approval's code is <prefix>-0001, -0002, … */
const PREFIX = /^[A-Za-z0-9][A-Za-z0-9-]{0,59}$/;

const options = {
  from: option.text('--from <date>', 'service date on or after (YYYY-MM-DD)'),
  to: option.text('--to <date>', 'service date on or before (YYYY-MM-DD)'),
  period: periodSpec,
  npi: option.text('--npi <npi>', "only the encounters this provider is on (each released whole, the other providers' payouts with it)"),
  limit: option.text('--limit <n>', 'at most this many encounters (the newest first, in ledger order)'),
  authCodePrefix: option.text(
    '--auth-code-prefix <prefix>',
    'each approval gets <prefix>-0001, -0002, … (asked for on a terminal after the review, a free one offered)',
  ),
  expectTotal: option.text('--expect-total <usd>', 'without a terminal: the total the run must come to, or nothing is sent (exit 4)'),
  journal: option.text('--journal <file>', "the run's journal; an existing one resumes its run (default: one in the data directory, named after the prefix)"),
  dryRun: option.flag('--dry-run', 'show the review (every encounter in json/csv) and send nothing'),
};

type RunOptions = OptionValues<typeof options>;

export const run = verb({
  name: 'run',
  description: 'a payment run: fund every adjudicated, unfunded encounter the filters select, once each, after one review and one confirmation; resumable',
  options,
  fields: [
    // --dry-run: each encounter the run would release.
    ...ENCOUNTER_FIELDS,
    // The run: each approval's outcome, as it happens.
    ...fieldsOf<Omit<ApprovalOutcome, 'encounter_id' | 'amount' | 'authorization_code'>>({
      status: true,
      processor_transfer_id: true,
      message: true,
      audit_head: true,
      funded_by: true,
    }),
  ],
  examples: [
    'tpa fund run --from 2026-11-01 --to 2026-11-30',
    'tpa fund run --dry-run -o csv > run.csv',
    'tpa fund run --period last-month --dry-run',
    'tpa fund run --npi 1234567893 --auth-code-prefix AUTH-20261127-ACME2 --expect-total 2460.00 --yes -o ndjson',
    'TPA_FAULT=drop:/funding/approve/ tpa fund run -p local --to 2026-11-26 --auth-code-prefix AUTH-20261127-ACME3 --expect-total 340.00 --journal run.journal --yes   # the sandbox drops its approval: stopped (exit 8)',
    'tpa fund run --journal run.journal --yes   # continues the run it holds: the approvals left',
  ],
  async run(ctx, _args, opts, cmd) {
    // On a terminal the review's first line names where the money moves: the notes said before it
    // (the keychain's on a first run, an open run's) are held until it is drawn (where.ts holdNotes).
    const release = opts.dryRun !== true && ctx.canPrompt ? holdNotes(ctx) : undefined;
    try {
      return await fundRun(ctx, opts, cmd);
    } finally {
      release?.();
    }
  },
});

type Runs = typeof import('../../../jobs/payment-run.js');

/** A new run's selection and how it is checked: the filters, the total expected, the selection as given (for the commands suggested). */
type NewRun = { filters: LedgerFilters; expect: number | undefined; selection: string[] };

async function fundRun(ctx: Context, opts: RunOptions, cmd: Command): Promise<CommandOutput> {
  const expect = expectTotalOf(opts.expectTotal);
  const filters = await checkedPeriodFilters(ctx, opts);
  const limit = limitOf(opts.limit);
  const dryRun = opts.dryRun === true;
  const prefix = opts.authCodePrefix?.trim();
  if (prefix !== undefined && !PREFIX.test(prefix)) throw new ValidationFailed('--auth-code-prefix: letters, digits and dashes, e.g. AUTH-20261123-ACME');
  // A journal that holds a confirmed plan resumes its run: --journal, or the one the prefix names.
  const runs = await import('../../../jobs/payment-run.js');
  const named = opts.journal ?? (prefix !== undefined ? defaultJournal(ctx, prefix, runs) : undefined);
  // A run is continued on the profile it was confirmed on, whose service its approvals went to:
  // on another profile it is refused first (it was not sent to this database), naming the command.
  if (!dryRun && named !== undefined && existsSync(named)) await refuseOtherProfile(ctx, named);
  // The database the approvals go to (its identity, from health): read once, for the journal and the open runs.
  const database = await runs.databaseOf(await ctx.client());
  // A dry run only reviews: it opens no journal, so it can never resume (and send) a run.
  let journal = dryRun ? undefined : await givenJournal(ctx, named, database, runs);
  // An open run of this profile is offered (continue, close or quit) before a new one, never shadowed by it.
  // An open run offered drew the line naming where the money moves: a resume then does not draw it again.
  const given = journal !== undefined;
  journal ??= await (await import('./open-run.js')).offerOpenRun(ctx, dryRun, () => sealKey(ctx, false), database);
  const resuming = journal !== undefined;
  // A prefix given for a new run must be free: its codes would repeat approvals already made.
  const usedBefore = prefix !== undefined && !resuming && !dryRun ? runs.prefixInHistory(ctx.paths.dataDir, prefix) : undefined;
  if (usedBefore)
    throw new ConflictError(`--auth-code-prefix ${prefix} was used already: ${usedBefore}; each run has its own prefix. Nothing was sent`, {
      code: 'authorization_code_used',
      hint: `a free one: --auth-code-prefix ${runs.freePrefix(ctx.paths.dataDir, prefix!)}`,
    });
  if (!dryRun && !resuming) needsWithoutTerminal(ctx, 'fund run', { '--auth-code-prefix': prefix, '--expect-total': expect });
  const client = await ctx.client();
  // The selection as the user gave it (--from, --to, --npi, --limit, …), for the commands suggested.
  const selection = givenArgs(cmd, ['dryRun', 'authCodePrefix', 'expectTotal', 'journal']);
  try {
    let plan = journal?.plan;
    if (plan) await resumeChecked(ctx, journal!, { filters, limit, expect, targetFirst: given });
    else {
      const selecting = counter(ctx.status, 'selecting', 'adjudicated encounters read');
      const items = await runs.selectEncounters(client, filters, limit, (seen, total) => selecting(seen, total));
      ctx.status.clear();
      const draft = runs.planRun(items, filters, prefix ?? '<prefix>');
      if (dryRun) return await dryRunOutput(ctx, draft, filters);
      if (draft.encounters.length === 0) return nothingToFund(ctx);
      plan = await confirmedPlan(ctx, client, draft, prefix, { filters, expect, selection }, runs);
      journal = await confirmedJournal(ctx, opts, plan, database, runs);
    }
    return await (await import('./run-approvals.js')).approveRun(ctx, journal!, plan);
  } finally {
    journal?.close();
  }
}

/** The journal --journal (or the prefix) names, when it exists and holds a plan; a closed run is refused (exit 4). */
async function givenJournal(ctx: Context, named: string | undefined, database: DatabaseIdentity | undefined, runs: Runs): Promise<RunJournal | undefined> {
  if (named === undefined || !existsSync(named)) return undefined;
  const journal = await runs.RunJournal.open(named, await sealKey(ctx, false), { database });
  if (!journal.plan) {
    journal.close();
    return undefined;
  }
  if (journal.closed) {
    journal.close();
    runs.refuseClosed(journal);
  }
  return journal;
}

/** Resumed: the selection is the one confirmed then, never widened; the total left is confirmed again on a terminal. */
async function resumeChecked(
  ctx: Context,
  journal: RunJournal,
  given: { filters: LedgerFilters; limit: number | undefined; expect: number | undefined; targetFirst: boolean },
): Promise<void> {
  const plan = journal.plan!;
  const left = plan.encounters.filter((e) => !journal.outcomes.has(e.encounter_id));
  const leftCents = left.reduce((s, e) => s + e.amount_cents, 0);
  ctx.note(
    `resuming the payment run ${plan.prefix} from ${journal.path}: ${left.length} of ${plan.encounters.length} approvals left (${formatCentsGrouped(leftCents)} of ${formatCentsGrouped(plan.total_cents)})`,
  );
  if (Object.keys(given.filters).length > 0 || given.limit !== undefined)
    ctx.note('the selection is the one confirmed when the run began: --from, --to, --period, --npi and --limit are not applied again');
  if (given.expect !== undefined && given.expect !== plan.total_cents) {
    throw new ConflictError(
      `the run in ${journal.path} totals ${formatCentsGrouped(plan.total_cents)}, not ${formatCentsGrouped(given.expect)}: nothing was sent`,
    );
  }
  if (left.length > 0 && !ctx.yes) {
    if (!ctx.canPrompt) throw new UsageError('resuming a payment run moves money: pass --yes (stdin is not a terminal, so tpa cannot ask). Nothing was sent.');
    await confirmTotal(ctx, leftCents, `Resume ${plan.prefix}: ${left.length} approvals left`, given.targetFirst);
  }
}

/** --dry-run: the review, every encounter in json and csv; nothing is sent. */
async function dryRunOutput(ctx: Context, draft: RunPlan, filters: LedgerFilters): Promise<CommandOutput> {
  const review = await reviewOf(ctx, draft, filters.provider_npi);
  const rows = draft.encounters.map((x) => encounterRow(review, x));
  // In CSV an amount has two decimals, as a spreadsheet shows money (domain/csv.ts csvAmount).
  const csvRows = () => rows.map((r) => withCsvAmounts(r, ['amount', 'npi_amount', 'other_providers_amount']));
  return {
    data: reviewData(review),
    items: ctx.format === 'csv' ? csvRows() : rows,
    columns: encounterColumns(filters.provider_npi),
    table: (tt) => reviewText(tt, review, 'Payment run (dry run: nothing is sent)', true),
  };
}

/** Nothing to fund: said once (on stdout as the table, else on stderr beside the empty data), nothing asked, exit 0. */
function nothingToFund(ctx: Context): CommandOutput {
  const nothing = 'nothing to fund: no adjudicated, unfunded encounter with a benefit above 0.00 matches';
  if (ctx.format !== 'table') ctx.note(nothing);
  return { data: { count: 0, total: 0, results: [] }, items: [], table: () => `${nothing[0]!.toUpperCase()}${nothing.slice(1)}.` };
}

/**
 * A new run reviewed and confirmed: where the money moves first, the summary, the total checked
 * against --expect-total, the prefix (given, or asked with a free one offered) and the total typed.
 */
async function confirmedPlan(ctx: Context, client: TpaClient, draft: RunPlan, given: string | undefined, run: NewRun, runs: Runs): Promise<RunPlan> {
  const { filters, expect, selection } = run;
  // The secret store is opened before the review, so that a note about it (no keychain here)
  // is said above the review, never between the confirmation and the approvals.
  await sealKey(ctx, false);
  const review = await reviewOf(ctx, draft, filters.provider_npi);
  const { tableTools } = await import('../../../render/output.js');
  const t = await tableTools(ctx.colorErr, terminalWidth(ctx.io.stderr));
  // Where the money moves is the first line; the summary is the last thing above the
  // questions, whatever the number of encounters; the list of them is one command away
  // (docs/jobs.md "Payment runs", "Approval screens").
  writeTargetLine(ctx, await moneyTarget(ctx), t.width);
  const count = draft.encounters.length;
  const listAll = suggestCommand(ctx, ['fund', 'run', '--dry-run', ...selection]);
  // Through note: wrapped at spaces to the terminal, its command kept whole.
  ctx.note(`${count} encounter${count === 1 ? '' : 's'}; the list of them: ${listAll}`);
  ctx.io.stderr.write(`${reviewText(t, review, 'Payment run', false, listAll)}\n`);
  if (expect !== undefined && expect !== draft.total_cents) {
    throw new ConflictError(`the selection totals ${formatCentsGrouped(draft.total_cents)}, not the expected ${formatCentsGrouped(expect)}: nothing was sent`, {
      hint: `review it with ${suggestCommand(ctx, ['fund', 'run', '--dry-run', ...selection])}, then give --expect-total the total it shows`,
    });
  }
  // The prefix is offered in the recommended format (AUTH-<date>-<organization>, dated by the
  // engine's clock), one no approval has used; another shape is warned about, not refused.
  const offered = runs.freePrefix(ctx.paths.dataDir, authorizationPrefix(review.payer ?? 'ORG', await engineDay(client)));
  const prefix = given ?? (await askedPrefix(ctx, offered, runs));
  const warning = shapeWarning(prefix, offered, 'prefix');
  if (warning) ctx.note(warning);
  if (!ctx.yes || expect === undefined) {
    if (!ctx.canPrompt) throw new UsageError('fund run needs --yes and --expect-total without a terminal. Nothing was sent.');
    const others = review.npi !== undefined && review.providers.some((p) => p.npi !== review.npi) ? ` (${review.npi} and the others on its encounters)` : '';
    // Short enough for one line at 80 columns: the summary above says the rest.
    const providers = `${review.providers.length} provider${review.providers.length === 1 ? '' : 's'}`;
    await confirmTotal(ctx, draft.total_cents, `Release to ${providers}${others}, which cannot be undone`, false);
  }
  return runs.withPrefix(draft, prefix);
}

/** The prefix asked for on a terminal, a free one offered; a prefix some approval has used is refused. */
async function askedPrefix(ctx: Context, offered: string, runs: Runs): Promise<string> {
  ctx.note(codeReferenceLine('prefix'));
  const asked = await ask('Authorization code prefix (<prefix>-0001, -0002, …)', {
    default: offered,
    validate: (v) => {
      if (!PREFIX.test(v.trim())) return 'letters, digits and dashes';
      const taken = runs.prefixTaken(ctx.paths.dataDir, v.trim());
      return taken === undefined ? true : `taken: give another prefix, e.g. ${offered} (${taken})`;
    },
  });
  return asked.trim();
}

/** Confirmed: the plan, every approval's key and authorization code, on the disk before anything is sent. */
async function confirmedJournal(ctx: Context, opts: RunOptions, plan: RunPlan, database: DatabaseIdentity | undefined, runs: Runs): Promise<RunJournal> {
  const journal = await runs.RunJournal.open(opts.journal ?? defaultJournal(ctx, plan.prefix, runs), await sealKey(ctx, true), { database });
  // Another run confirmed a plan in this journal meanwhile (it held the lock while we reviewed).
  if (journal.plan) {
    journal.close();
    throw new ConflictError(
      `another payment run under ${journal.plan.prefix} was confirmed in ${journal.path} meanwhile: nothing was sent by this one. ${suggestCommand(ctx, ['jobs'])} shows it; a new run (another prefix) selects what is still unfunded`,
    );
  }
  journal.confirm(plan, { profile: ctx.profileName, base_url: ctx.profile().base_url ?? null });
  // A journal kept elsewhere is named beside the data directory's, so `tpa jobs` lists the run and
  // its codes not sent yet stay taken for other approvals (job-journals.ts pendingRunCodes).
  if (opts.journal !== undefined) {
    const [{ rememberJournal }, { journalsDir }] = await Promise.all([import('../../../jobs/job-journals.js'), import('../../../jobs/journal.js')]);
    rememberJournal(journalsDir(ctx.paths.dataDir), journal.path);
  }
  ctx.note(`journal: ${journal.path} (if interrupted, run: ${suggestCommand(ctx, ['fund', 'run', '--journal', journal.path])})`);
  return journal;
}

/**
 * Refuses (exit 2, nothing sent) to continue the run in `path` on another profile than the one it
 * was confirmed on (or the same name with another base URL): its approvals went to that profile's
 * service, whose ledger says what became of them. The command names the right profile.
 */
async function refuseOtherProfile(ctx: Context, path: string): Promise<void> {
  const { readJob } = await import('../../../jobs/job-journals.js');
  const s = readJob(path).summary;
  if (s.kind !== 'payment run' || s.profile === null) return;
  const baseUrl = ctx.profile().base_url ?? null;
  if (s.profile === ctx.profileName && (s.base_url ?? null) === baseUrl) return;
  const { oneLine, screen } = await import('../../../render/screen.js');
  const where = s.base_url ? ` (${screen(s.base_url)})` : '';
  const same = s.profile === ctx.profileName ? `, with another base URL than the profile has now (${screen(baseUrl ?? 'none')})` : '';
  throw new UsageError(
    `the payment run in ${oneLine(path)} was confirmed on the profile ${screen(s.profile)}${where}${same}, not on ${screen(ctx.profileName)}: its approvals went there, so it is continued there. Nothing was sent`,
    {
      code: 'payment_run_other_profile',
      hint: `continue it: ${suggestCommand({ profileName: s.profile, profileExplicit: true }, ['fund', 'run', '--journal', path])}`,
    },
  );
}

function limitOf(limit: string | undefined): number | undefined {
  if (limit === undefined) return undefined;
  const n = Number(limit);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--limit must be a whole number of at least 1 (got "${limit}")`);
  return n;
}

/** A run's journal when --journal names none: in the data directory, named after the profile and the prefix (a prefix is one run's). */
function defaultJournal(ctx: Context, prefix: string, { journalsDir, runJournalName }: typeof import('../../../jobs/payment-run.js')): string {
  const profile = ctx.profile();
  const id = createHash('sha256')
    .update(JSON.stringify([profile.name, profile.base_url ?? '', prefix]))
    .digest('hex')
    .slice(0, 12);
  return join(journalsDir(ctx.paths.dataDir), runJournalName(prefix, id));
}

/**
 * The user's key that seals a confirmed plan (auth/seal-key.ts: in the credential store, outside the
 * journal and the data directory), made on the first confirmation.
 */
async function sealKey(ctx: Context, create: boolean): Promise<Buffer | undefined> {
  const { runSealKey } = await import('../../../auth/seal-key.js');
  return (await runSealKey(ctx.paths, ctx.io.env, ctx.note, create)).key;
}

/**
 * The approver types the total shown (fund/confirm.ts, the grammar `fund approve` shares); anything
 * else sends nothing. The question names the environment when it is not the local engine, and
 * `targetFirst` (a resumed run, which has no review) puts the line naming where the money moves first.
 */
async function confirmTotal(ctx: Context, totalCents: number, what: string, targetFirst: boolean): Promise<void> {
  const target = await moneyTarget(ctx);
  if (targetFirst) writeTargetLine(ctx, target, terminalWidth(ctx.io.stderr));
  await typeToConfirm(totalCents, `${promptTag(target)}${what}`, 'total');
}

function expectTotalOf(expectTotal: string | undefined): number | undefined {
  if (expectTotal === undefined) return undefined;
  const r = parseTypedAmount(expectTotal);
  if ('problem' in r) throw new ValidationFailed(`--expect-total: ${r.problem}`);
  return r.cents;
}
