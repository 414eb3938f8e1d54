// `tpa fund run`: the selection, the review, the confirmation and the output of a payment run; the
// runner (client/payment-run.ts) does the approvals (docs/design.md "Payment runs").
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { executeRun, planRun, RunJournal, selectEncounters, type ApprovalOutcome, type RunPlan } from '../client/payment-run.js';
import type { LedgerFilters } from '../client/types.js';
import { formatCents, formatCentsGrouped, parseCents } from '../domain/money.js';
import type { ProviderLine } from '../domain/report.js';
import type { PayoutShare } from '../domain/settlement.js';
import { ConflictError, fieldsInvalid, UsageError, ValidationFailed } from '../errors.js';
import { tableTools, type CommandOutput, type TableTools } from '../render/output.js';
import { rowWriter } from '../render/stream.js';
import type { Options } from './action.js';
import type { Context } from './context.js';
import { terminalWidth } from './io.js';
import { periodFilters } from './options.js';
import { ask } from './prompt.js';

interface Review {
  plan: RunPlan;
  providers: ProviderLine[];
  /** Each encounter's payouts, as the approval will make them. */
  payouts: Map<string, PayoutShare[]>;
  /** --npi: the provider the selection was made for (the others' payouts ride on the same transfers). */
  npi?: string;
}

function filtersOf(opts: Options): LedgerFilters {
  const errors: { field: string; message: string }[] = [];
  const f = periodFilters(opts, errors);
  if (errors.length > 0) throw fieldsInvalid(errors);
  return f;
}

function limitOf(opts: Options): number | undefined {
  if (opts.limit === undefined) return undefined;
  const n = Number(opts.limit);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--limit must be a whole number of at least 1 (got "${String(opts.limit)}")`);
  return n;
}

/** A run's journal when --journal names none: in the data directory, named after the profile and the prefix (a prefix is one run's). */
function defaultJournal(ctx: Context, prefix: string): string {
  const profile = ctx.profile();
  const id = createHash('sha256')
    .update(JSON.stringify([profile.name, profile.base_url ?? '', prefix]))
    .digest('hex')
    .slice(0, 12);
  return join(ctx.paths.dataDir, 'journals', `fund-run-${prefix.replace(/[^A-Za-z0-9-]/g, '_')}-${id}.ndjson`);
}

/**
 * The user's key that seals a confirmed plan (auth/seal-key.ts: in the credential store, outside the
 * journal and the data directory), made on the first confirmation.
 */
async function sealKey(ctx: Context, create: boolean): Promise<Buffer | undefined> {
  const { runSealKey } = await import('../auth/seal-key.js');
  return (await runSealKey(ctx.paths, ctx.io.env, ctx.note, create)).key;
}

/** The payouts the approvals will make (the engine's rule, docs/money-rules.md "Settlement"): per encounter, and the totals per provider. */
async function reviewOf(ctx: Context, plan: RunPlan, npi: string | undefined): Promise<Review> {
  const client = await ctx.client();
  const { reviewPayouts } = await import('./commands/fund.run.js');
  const totals = new Map<string, ProviderLine>();
  const byEncounter = new Map<string, PayoutShare[]>();
  let n = 0;
  for (const e of plan.encounters) {
    const payouts: PayoutShare[] = reviewPayouts((await client.ledgerDetail(e.encounter_id)).body);
    byEncounter.set(e.encounter_id, payouts);
    for (const p of payouts) {
      const t = totals.get(p.providerNpi) ?? { npi: p.providerNpi, name: p.providerName, payouts: 0, amountCents: 0, feeCents: 0, netCents: 0 };
      t.payouts++;
      t.amountCents += p.amountCents;
      t.feeCents += p.feeCents;
      t.netCents += p.netCents;
      totals.set(p.providerNpi, t);
    }
    if (++n % 50 === 0) ctx.progress(`reviewing: ${n} of ${plan.encounters.length} encounters`);
  }
  const providers = [...totals.values()].sort((a, b) => b.amountCents - a.amountCents || a.npi.localeCompare(b.npi));
  return { plan, providers, payouts: byEncounter, ...(npi !== undefined ? { npi } : {}) };
}

/**
 * With --npi: funding is per encounter (one approval for its whole benefit), so a run for one
 * provider releases whole encounters, the other providers' payouts with it. The review says so,
 * with those payouts, before anything is confirmed (docs/design.md "Payment runs").
 */
function splitByNpi(r: Review, encounterId?: string): { mineCents: number; othersCents: number; others: ProviderLine[] } {
  const ids = encounterId === undefined ? [...r.payouts.keys()] : [encounterId];
  let mineCents = 0;
  let othersCents = 0;
  for (const id of ids) {
    for (const p of r.payouts.get(id) ?? []) {
      if (p.providerNpi === r.npi) mineCents += p.amountCents;
      else othersCents += p.amountCents;
    }
  }
  return { mineCents, othersCents, others: r.providers.filter((p) => p.npi !== r.npi) };
}

function reviewText(t: TableTools, r: Review, rows: number | undefined, heading: string): string {
  const money = (c: number) => formatCentsGrouped(c);
  const e = r.plan.encounters;
  const shown = rows === undefined ? e : e.slice(0, rows);
  const split = r.npi !== undefined ? splitByNpi(r) : undefined;
  const lines = [
    t.c.bold(`${heading}: ${e.length} encounter${e.length === 1 ? '' : 's'}, ${money(r.plan.total_cents)} in all`),
    ...(split && split.othersCents > 0
      ? [
          t.c.yellow(
            `--npi ${r.npi} selects the encounters it is on, and each approval releases its encounter's whole benefit: ${money(split.mineCents)} to ${r.npi}, and ${money(split.othersCents)} to ${split.others.length} other provider${split.others.length === 1 ? '' : 's'} on the same transfers (below).`,
          ),
        ]
      : []),
    t.table(
      [
        'Provider',
        { header: 'Payouts', align: 'right' },
        { header: 'Amount', align: 'right' },
        { header: 'Fees', align: 'right' },
        { header: 'Net to provider', align: 'right' },
      ],
      r.providers.map((p) => [
        `${p.name} (${p.npi})${split && p.npi !== r.npi ? ' — another provider' : ''}`,
        String(p.payouts),
        money(p.amountCents),
        money(p.feeCents),
        money(p.netCents),
      ]),
    ),
    split
      ? t.table(
          [
            'Authorization',
            'Encounter',
            'Service date',
            'Provider',
            { header: 'Amount', align: 'right' },
            { header: `To ${r.npi}`, align: 'right' },
            { header: 'To others', align: 'right' },
          ],
          shown.map((x) => {
            const one = splitByNpi(r, x.encounter_id);
            return [x.authorization_code, x.encounter_id, x.service_date, x.provider_name, money(x.amount_cents), money(one.mineCents), money(one.othersCents)];
          }),
        )
      : t.table(
          ['Authorization', 'Encounter', 'Service date', 'Provider', { header: 'Amount', align: 'right' }],
          shown.map((x) => [x.authorization_code, x.encounter_id, x.service_date, x.provider_name, money(x.amount_cents)]),
        ),
  ];
  if (shown.length < e.length) lines.push(`… and ${e.length - shown.length} more (all of them: tpa fund run --dry-run -o csv)`);
  return lines.join('\n');
}

const providerData = (p: ProviderLine) => ({
  npi: p.npi,
  name: p.name,
  payouts: p.payouts,
  amount: formatCents(p.amountCents),
  fees: formatCents(p.feeCents),
  net: formatCents(p.netCents),
});

function reviewData(r: Review): Record<string, unknown> {
  const split = r.npi !== undefined ? splitByNpi(r) : undefined;
  return {
    count: r.plan.encounters.length,
    total: formatCents(r.plan.total_cents),
    filters: r.plan.filters,
    providers: r.providers.map(providerData),
    // --npi: what goes to that provider, and what the same transfers carry to the others.
    ...(split
      ? {
          npi: { npi: r.npi, amount: formatCents(split.mineCents), other_providers_amount: formatCents(split.othersCents) },
          other_providers: split.others.map(providerData),
        }
      : {}),
    encounters: r.plan.encounters.map((x) => ({
      ...encounterRow(r, x),
      payouts: (r.payouts.get(x.encounter_id) ?? []).map((p) => ({
        provider_npi: p.providerNpi,
        provider_name: p.providerName,
        provider_role: p.providerRole,
        amount: formatCents(p.amountCents),
        fee: formatCents(p.feeCents),
        net: formatCents(p.netCents),
      })),
    })),
  };
}

/** An encounter of the review, flat (a csv row); with --npi, its amount to that provider and to the others. */
function encounterRow(r: Review, x: RunPlan['encounters'][number]) {
  const split = r.npi !== undefined ? splitByNpi(r, x.encounter_id) : undefined;
  return {
    encounter_id: x.encounter_id,
    encounter_number: x.encounter_number,
    service_date: x.service_date,
    provider_npi: x.provider_npi,
    provider_name: x.provider_name,
    amount: formatCents(x.amount_cents),
    ...(split ? { npi_amount: formatCents(split.mineCents), other_providers_amount: formatCents(split.othersCents) } : {}),
    authorization_code: x.authorization_code,
  };
}

/** The approver types the total shown; anything else sends nothing. */
async function confirmTotal(_ctx: Context, totalCents: number, what: string): Promise<void> {
  const shown = formatCentsGrouped(totalCents);
  const typed = await ask(`${what}: type the total to release (${shown}) to confirm`, {
    validate: (v) =>
      parseCents(v.trim().replace(/^\$/, '').replace(/,/g, '')) === totalCents ? true : `type ${shown} exactly, or press Ctrl-C to send nothing`,
  });
  if (parseCents(typed.trim().replace(/^\$/, '').replace(/,/g, '')) !== totalCents)
    throw new UsageError('the total typed is not the total shown: nothing was sent');
}

function expectTotalOf(opts: Options): number | undefined {
  if (opts.expectTotal === undefined) return undefined;
  const c = parseCents(String(opts.expectTotal).replace(/,/g, ''));
  if (c === undefined) throw new ValidationFailed(`--expect-total: "${String(opts.expectTotal)}" is not an amount with at most two decimals, e.g. 12345.67`);
  return c;
}

export async function fundRun(ctx: Context, opts: Options): Promise<CommandOutput | void> {
  const expect = expectTotalOf(opts);
  const filters = filtersOf(opts);
  const limit = limitOf(opts);
  const dryRun = opts.dryRun === true;
  let prefix = (opts.authCodePrefix as string | undefined)?.trim();
  if (prefix !== undefined && !/^[A-Za-z0-9][A-Za-z0-9-]{0,59}$/.test(prefix))
    throw new ValidationFailed('--auth-code-prefix: letters, digits and dashes, e.g. AUTH-20261123-ACME');
  // A journal that holds a confirmed plan resumes its run: --journal, or the one the prefix names.
  const named = (opts.journal as string | undefined) ?? (prefix !== undefined ? defaultJournal(ctx, prefix) : undefined);
  // A dry run only reviews: it opens no journal, so it can never resume (and send) a run.
  let journal = !dryRun && named !== undefined && existsSync(named) ? await RunJournal.open(named, await sealKey(ctx, false)) : undefined;
  if (journal && !journal.plan) {
    journal.close();
    journal = undefined;
  }
  const resuming = journal !== undefined;
  if (!ctx.canPrompt && !dryRun && !resuming) {
    const missing = [prefix === undefined && '--auth-code-prefix', expect === undefined && '--expect-total', !ctx.yes && '--yes'].filter(Boolean);
    if (missing.length > 0)
      throw new UsageError(`fund run moves money and cannot be undone; without a terminal to confirm on, it needs ${missing.join(', ')}. Nothing was sent.`);
  }
  const client = await ctx.client();
  if (!resuming && !dryRun && prefix === undefined) {
    prefix = (
      await ask('Authorization code prefix (each approval gets <prefix>-0001, -0002, …)', {
        validate: (v) => (/^[A-Za-z0-9][A-Za-z0-9-]{0,59}$/.test(v.trim()) ? true : 'letters, digits and dashes'),
      })
    ).trim();
  }
  try {
    let plan = journal?.plan;
    const t = await tableTools(ctx.colorErr, terminalWidth(ctx.io.stderr));
    if (plan) {
      // Resumed: the selection is the one confirmed then, never widened.
      const left = plan.encounters.filter((e) => !journal!.outcomes.has(e.encounter_id));
      const leftCents = left.reduce((s, e) => s + e.amount_cents, 0);
      ctx.note(
        `resuming the payment run ${plan.prefix} from ${journal!.path}: ${left.length} of ${plan.encounters.length} approvals left (${formatCentsGrouped(leftCents)} of ${formatCentsGrouped(plan.total_cents)})`,
      );
      if (Object.keys(filters).length > 0 || limit !== undefined)
        ctx.note('the selection is the one confirmed when the run began: --from, --to, --npi and --limit are not applied again');
      if (expect !== undefined && expect !== plan.total_cents) {
        throw new ConflictError(
          `the run in ${journal!.path} totals ${formatCentsGrouped(plan.total_cents)}, not ${formatCentsGrouped(expect)}: nothing was sent`,
        );
      }
      if (left.length > 0 && !ctx.yes) {
        if (!ctx.canPrompt)
          throw new UsageError('resuming a payment run moves money: pass --yes (stdin is not a terminal, so tpa cannot ask). Nothing was sent.');
        await confirmTotal(ctx, leftCents, `Resume: ${left.length} approvals left`);
      }
    } else {
      const items = await selectEncounters(client, filters, limit, (seen, total) => ctx.progress(`selecting: ${seen} of ${total} adjudicated encounters read`));
      const draft = planRun(items, filters, prefix ?? '<prefix>');
      const review = await reviewOf(ctx, draft, filters.provider_npi);
      if (dryRun) {
        const rows = draft.encounters.map((x) => encounterRow(review, x));
        return { data: reviewData(review), items: rows, table: (tt) => reviewText(tt, review, undefined, 'Payment run (dry run: nothing is sent)') };
      }
      if (draft.encounters.length === 0) {
        ctx.note('nothing to fund: no adjudicated encounter with a benefit above 0.00 matches');
        return { data: { count: 0, total: '0.00', results: [] }, items: [], table: () => 'Nothing to fund.' };
      }
      const screen = ctx.io.stderr.isTTY ? Math.max(5, (process.stderr.rows || 24) - 16) : 10;
      ctx.io.stderr.write(`${reviewText(t, review, screen, 'Payment run')}\n`);
      if (expect !== undefined && expect !== draft.total_cents) {
        throw new ConflictError(
          `the selection totals ${formatCentsGrouped(draft.total_cents)}, not the expected ${formatCentsGrouped(expect)}: nothing was sent`,
          {
            hint: 'review it with tpa fund run --dry-run, then give --expect-total the total it shows',
          },
        );
      }
      if (!ctx.yes || expect === undefined) {
        if (!ctx.canPrompt) throw new UsageError('fund run needs --yes and --expect-total without a terminal. Nothing was sent.');
        await confirmTotal(
          ctx,
          draft.total_cents,
          `Release ${formatCentsGrouped(draft.total_cents)} to ${review.providers.length} provider${review.providers.length === 1 ? '' : 's'}${
            review.npi !== undefined && review.providers.some((p) => p.npi !== review.npi) ? ` (${review.npi} and the others on its encounters)` : ''
          }`,
        );
      }
      // Confirmed: the plan, every approval's key and authorization code, on the disk before anything is sent.
      journal = await RunJournal.open((opts.journal as string | undefined) ?? defaultJournal(ctx, prefix!), await sealKey(ctx, true));
      // Another run confirmed a plan in this journal meanwhile (it held the lock while we reviewed).
      if (journal.plan)
        throw new ConflictError(
          `the payment run ${journal.plan.prefix} began in ${journal.path} meanwhile: nothing was sent. Run the same command again to continue it`,
        );
      journal.confirm(draft);
      plan = draft;
      ctx.note(`journal: ${journal!.path} (if interrupted, run: tpa fund run --journal ${journal!.path})`);
    }
    return await execute(ctx, journal!, plan);
  } finally {
    journal?.close();
  }
}

async function execute(ctx: Context, journal: RunJournal, plan: RunPlan): Promise<CommandOutput> {
  const client = await ctx.client();
  const table = ctx.format === 'table';
  const writer = table ? undefined : rowWriter<ApprovalOutcome>(ctx.format as 'json' | 'ndjson' | 'csv', ctx.io.stdout);
  const onSignal = () => {
    ctx.note(`interrupted: the journal says what was approved; continue with: tpa fund run --journal ${journal.path}`);
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  let done = 0;
  let result;
  let history: import('../client/fund-history.js').FundHistory | undefined;
  try {
    const { FundHistory } = await import('../client/fund-history.js');
    history = FundHistory.open(ctx.paths.dataDir);
    result = await executeRun(client, journal, {
      history: { log: history, dataDir: ctx.paths.dataDir, profile: ctx.profileName, environment: ctx.profile().env },
      onOutcome: (o) => {
        done++;
        writer?.write([o]);
        if (o.status === 'FAILED') ctx.note(`${o.encounter_id}: failed: ${o.message ?? ''}`);
        if (o.status === 'OWED') ctx.note(`${o.encounter_id}: ${o.message ?? 'owed again'}`);
        if (done % 10 === 0 || done === plan.encounters.length) ctx.progress(`approving: ${done} of ${plan.encounters.length}`);
      },
      onNote: (text) => ctx.note(text),
    });
  } finally {
    process.removeListener('SIGINT', onSignal);
    writer?.end();
    history?.close();
  }
  const counts = { APPROVED: 0, SKIPPED: 0, FAILED: 0, OWED: 0 };
  for (const o of result.outcomes) counts[o.status]++;
  const t = await tableTools(table ? ctx.color : ctx.colorErr, terminalWidth(table ? ctx.io.stdout : ctx.io.stderr));
  const owed = result.owedCents > 0 ? `; ${formatCentsGrouped(result.owedCents)} owed again (transfers FAILED or REFUNDED since approval)` : '';
  const summary = [
    t.c.bold(`Payment run ${plan.prefix}: ${formatCentsGrouped(result.approvedCents)} approved of ${formatCentsGrouped(plan.total_cents)}${owed}`),
    t.keyValues([
      ['Approved', String(counts.APPROVED)],
      ['Skipped', String(counts.SKIPPED)],
      ['Failed', String(counts.FAILED)],
      ...(counts.OWED > 0 ? ([['Owed again', `${counts.OWED} (${formatCentsGrouped(result.owedCents)})`]] as [string, string][]) : []),
      ['Not yet sent', String(plan.encounters.length - result.outcomes.length)],
      ['Journal', journal.path],
      // The engine's audit head after the last release, for the operator to keep elsewhere (docs/design.md "The audit chain").
      ...(result.auditHead ? ([['Audit head', `record ${result.auditHead.seq} ${result.auditHead.hash}`]] as [string, string][]) : []),
    ]),
  ].join('\n');
  if (table) {
    const rows = result.outcomes.map((o) => [o.authorization_code, o.encounter_id, t.amount(o.amount), t.status(o.status), o.processor_transfer_id ?? '—']);
    ctx.io.stdout.write(`${t.table(['Authorization', 'Encounter', { header: 'Amount', align: 'right' }, 'Status', 'Transfer'], rows)}\n${summary}\n`);
  } else ctx.io.stderr.write(`${summary}\n`);
  if (result.stopped) ctx.note(`stopped: ${result.stopped.message}; continue with: tpa fund run --journal ${journal.path}`);
  if (counts.OWED > 0)
    ctx.note(
      `${counts.OWED} encounter(s) owed again: this run never sends an approval twice. Fund them anew after a review and a confirmation: a new run (tpa fund run --auth-code-prefix <a new prefix>) selects them again, or tpa fund approve <encounter_id>`,
    );
  return { exitCode: result.exitCode };
}
