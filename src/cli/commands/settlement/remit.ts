// tpa settlement remit: the ASC X12 835 remittance advice of a transfer, or of the transfers
// paid or refunded in a period: one transaction per payee and transfer (docs/x12-835.md "835 out"). On stdout,
// or into --out, written whole or not at all.
import { existsSync } from 'node:fs';
import type { FoundNotice, FoundTransfer, NoRemittance } from '../../../jobs/remit.js';
import type { RemitTransaction } from '../../../domain/x12-835.js';
import { ConflictError, EXIT, fieldsInvalid, NetworkError, NotFoundError, PendingError, TpaError, UsageError, ValidationFailed } from '../../../errors.js';
import type { CommandOutput } from '../../../render/output.js';
import type { Context } from '../../context.js';
import { folderProblem, writeWhole } from '../../out-file.js';
import { countedPeriod, lookbackDays, lookbackSpec, periodFilters, readWait, scanOf } from '../../options.js';
import { counter } from '../../status-line.js';
import { argument, option, verb, type OptionValues } from '../../verb.js';

const options = {
  out: option.text('--out <file>', 'write the 835 into this file (whole or not at all) instead of stdout; an existing file is kept unless --force'),
  force: option.flag('--force', 'with --out: replace the file if it exists'),
  from: option.text('--from <date>', 'the transfers paid (arrived) or refunded from this day (YYYY-MM-DD), instead of one named'),
  to: option.text('--to <date>', 'the transfers paid (arrived) or refunded up to this day (YYYY-MM-DD)'),
  npi: option.text('--npi <npi>', "only this payee's transactions"),
  lookback: lookbackSpec,
};

export const remit = verb({
  name: 'remit',
  description: 'the ASC X12 835 remittance advice of a transfer, or of the transfers paid or refunded in a period: one transaction per payee',
  args: {
    ref: argument.optional('[transfer]', 'the encounter (its id or ENC number: its latest transfer) or a processor transfer id; or give --from and --to'),
  },
  options,
  examples: [
    'tpa settlement remit ENC-2026-000001 --out ENC-2026-000001.835',
    'tpa settlement remit ENC-2026-000001 --npi 1234567893   # one payee of its transfer',
    'tpa settlement remit --from 2026-11-01 --to 2026-11-30 --out november.835',
  ],
  run(ctx, { ref }, opts) {
    return settlementRemit(ctx, ref, opts);
  },
});

type Remit = typeof import('../../../jobs/remit.js');
type Options = OptionValues<typeof options>;

/** What the steps of a remittance share: the reader of CLM01s, and the writer's refusal as tpa's error. */
interface RemitRun {
  ctx: Context;
  client: Awaited<ReturnType<Context['client']>>;
  remit: Remit;
  check: (t: RemitTransaction) => void;
  refusal: (err: unknown, of: string) => unknown;
  claimIds: ReturnType<Remit['lazyClm01']>;
}

/** What goes into the 835: its transactions, ISA15, and the worst exit code of a transfer left out. */
interface Remitted {
  transactions: RemitTransaction[];
  usage: 'P' | 'T';
  worst: number;
}

async function settlementRemit(ctx: Context, ref: string | undefined, opts: Options): Promise<CommandOutput> {
  // stdout is X12: a service's error body never goes there, whatever the output format.
  ctx.stdoutIsDocument = true;
  const f = checkedOptions(ref, opts);
  const client = await ctx.client();
  const remit = await import('../../../jobs/remit.js');
  const x12 = await import('../../../domain/x12-835.js');
  const run: RemitRun = {
    ctx,
    client,
    remit,
    check: x12.checkTransaction,
    // What the writer refuses: a field of the service's answer an 835 cannot carry is an answer tpa
    // cannot use (exit 8); amounts that do not balance are a conflict (exit 4). Never a broken file.
    refusal: (err, of) => {
      if (!(err instanceof x12.RemitError)) return err;
      return err.kind === 'unusable'
        ? new NetworkError(`${of}: the service's answer cannot be written as an 835: ${err.message}; no 835 written`, { code: 'answer_unusable' })
        : new ConflictError(`${of}: ${err.message}; no 835 written`, { code: 'remit_unbalanced' });
    },
    claimIds: remit.lazyClm01(ctx.paths.dataDir),
  };
  const remitted = ref !== undefined ? await namedTransfer(run, ref, opts) : await periodTransfers(run, opts, f);
  if (remitted.transactions.length === 0) return { exitCode: remitted.worst };
  noteLackingPayers(ctx, remitted.transactions);
  await write(run, remitted, opts, x12.write835);
  return { exitCode: remitted.worst };
}

/** The option combinations refused, and the period's filters; the --out folder checked before anything is read. */
function checkedOptions(ref: string | undefined, opts: Options) {
  const period = opts.from !== undefined || opts.to !== undefined;
  if (ref !== undefined && period) throw new UsageError('name one transfer, or give --from and --to, not both');
  if (ref === undefined && !period) throw new UsageError('name a transfer (an encounter or a processor transfer id), or give --from and --to');
  if (opts.force && opts.out === undefined) throw new UsageError('--force goes with --out: it replaces the file --out names');
  if (opts.lookback !== undefined && !period) throw new UsageError('--lookback goes with --from and --to');
  const errors: { field: string; message: string }[] = [];
  const f = periodFilters({ from: opts.from, to: opts.to, npi: opts.npi }, errors);
  if (errors.length > 0) throw fieldsInvalid(errors);
  if (period) {
    for (const name of ['from', 'to'] as const)
      if (opts[name] === undefined) throw new UsageError(`--${name} is required with --${name === 'from' ? 'to' : 'from'}`);
    if (f.end_date! < f.start_date!) throw new ValidationFailed('--to is before --from');
  }
  // The folder is checked before anything is read: a wrong --out is said at once, not after the
  // transfers are fetched.
  if (opts.out !== undefined) {
    const problem = folderProblem(opts.out);
    if (problem) throw new UsageError(`cannot write ${opts.out}: ${problem}; nothing was written`);
  }
  if (opts.out !== undefined && !opts.force) {
    if (existsSync(opts.out))
      throw new UsageError(`${opts.out} exists: tpa does not write over it`, { hint: 'add --force to replace it, or name another file' });
  }
  return f;
}

async function namedTransfer(run: RemitRun, ref: string, opts: Options): Promise<Remitted> {
  const { ctx, remit } = run;
  const reading = counter(ctx.status, 'looking for the transfer in the ledger', 'entries');
  const found = await remit.findTransfer(run.client, ref, (p) => reading(p.read, p.total), ctx.paths.dataDir);
  ctx.status.clear();
  const transactions = singleTransactions(ctx, found, run.claimIds, opts.npi, remit, run.check, run.refusal);
  // ISA15: T when every encounter of the 835 is test data (docs/x12.md "Test data").
  const usage = ('notice' in found ? found.notice : found.detail).encounter.test_data === true ? 'T' : 'P';
  return { transactions, usage, worst: EXIT.OK };
}

async function periodTransfers(run: RemitRun, opts: Options, f: ReturnType<typeof periodFilters>): Promise<Remitted> {
  const { ctx, remit } = run;
  const counted = countedPeriod('settled', opts.lookback, f)!;
  const reading = counter(ctx.status, 'reading the ledger', 'entries');
  const { found, entriesRead, inTransit } = await remit.transfersInPeriod(run.client, counted.filters, counted.span, (p) =>
    reading(p.read, p.total, readWait(p)),
  );
  ctx.status.clear();
  // A partial read (--lookback) is said on stderr: an 835 has no room for it.
  await scanOf(ctx, counted.filters.start_date, counted.filters.end_date, lookbackDays(opts.lookback), entriesRead, { provider_npi: opts.npi });
  // Test and production data are never in one 835: with any production encounter in the period,
  // the test ones are left out, each named (their 835 is the transfer's own, ISA15 T).
  const production = found.some((one) => one.detail.encounter.test_data !== true);
  const remitted: Remitted = { transactions: [], usage: production ? 'P' : 'T', worst: EXIT.OK };
  const none: NoRemittance[] = [];
  for (const one of found) {
    if (production && one.detail.encounter.test_data === true) {
      ctx.note(
        `skipped: transfer ${one.transfer.processor_transfer_id} (encounter ${one.detail.encounter.encounter_number}) is test data: not in a production 835 (its own: tpa settlement remit ${one.detail.encounter.encounter_number})`,
      );
      continue;
    }
    oneOfPeriod(run, one, opts.npi, remitted, none);
  }
  for (const n of none) ctx.note(`skipped: ${n.why}`);
  if (inTransit > 0)
    ctx.note(
      `${inTransit} transfer${inTransit === 1 ? '' : 's'} initiated from ${f.start_date} to ${f.end_date} had not arrived yet: each is in the 835 of the period it arrives in`,
    );
  if (remitted.transactions.length === 0)
    ctx.note(
      `no 835 written: ${found.length === 0 ? `no transfer arrived (was paid) or was refunded from ${f.start_date} to ${f.end_date}` : 'none of the transfers paid or refunded in the period has a remittance'}${opts.npi ? ` for NPI ${opts.npi}` : ''}`,
    );
  return remitted;
}

/**
 * One transfer of the period into the 835. One that cannot be remitted (its payouts and lines
 * disagree) does not stop the others; the exit code says it (docs/x12-835.md "Failed and refunded transfers").
 */
function oneOfPeriod(run: RemitRun, one: FoundTransfer, npi: string | undefined, remitted: Remitted, none: NoRemittance[]): void {
  try {
    const r = run.remit.remitTransactions(one, run.claimIds, npi);
    if (r.none) none.push(r.none);
    try {
      for (const t of r.transactions) run.check(t);
    } catch (e) {
      throw run.refusal(e, `transfer ${one.transfer.processor_transfer_id}`);
    }
    remitted.transactions.push(...r.transactions);
  } catch (err) {
    if (!(err instanceof TpaError)) throw err;
    run.ctx.note(`skipped: transfer ${one.transfer.processor_transfer_id}: ${err.message}`);
    remitted.worst = Math.max(remitted.worst, err.exitCode);
  }
}

/**
 * A payer the service gives no profile of: the file is written (the money in it is right), and
 * what the guide requires of loop 1000A that it lacks is said, once a payer.
 */
function noteLackingPayers(ctx: Context, transactions: RemitTransaction[]): void {
  for (const payer of new Map(transactions.map((t) => [t.payer.id, t.payer])).values()) {
    const lacking = [
      ...(payer.address ? [] : ['address (N3, N4)']),
      ...(payer.contact ? [] : ['technical contact (PER*BL)']),
      ...(payer.taxId ? [] : ['tax id (TRN03 is its id instead)']),
    ];
    if (lacking.length > 0) ctx.note(`the service gives no ${lacking.join(', ')} of payer ${payer.id}: the 835 lacks what the guide requires there`);
  }
}

/** The 835, on stdout or into --out (whole or not at all). */
async function write(
  { ctx, client, remit }: RemitRun,
  { transactions, usage }: Remitted,
  opts: Options,
  write835: typeof import('../../../domain/x12-835.js').write835,
): Promise<void> {
  const { serviceNow } = await import('../../../client/activity.js');
  const payees = new Set(transactions.map((t) => t.payee.npi));
  const text = write835(transactions, {
    controlNumber: await remit.nextControlNumber(ctx.paths.dataDir),
    sender: transactions[0]!.payer.id,
    receiver: payees.size === 1 ? [...payees][0]! : 'PAYEES',
    createdAt: await serviceNow(client),
    usage,
  });
  if (opts.out === undefined) {
    ctx.io.stdout.write(text);
  } else {
    await writeWhole(opts.out, text, opts.force === true);
    ctx.note(
      `wrote ${opts.out}: ${transactions.length} transaction${transactions.length === 1 ? '' : 's'} for ${payees.size} payee${payees.size === 1 ? '' : 's'}`,
    );
  }
}

/**
 * The transactions of the one transfer named, or of the notice of an encounter that pays nothing;
 * none (an error saying why) for a FAILED transfer, one not final yet, or a payee it does not name.
 */
function singleTransactions(
  ctx: Context,
  found: FoundTransfer | FoundNotice,
  claimIds: Pick<ReadonlyMap<string, string>, 'get'>,
  npi: string | undefined,
  remit: typeof import('../../../jobs/remit.js'),
  check: (t: RemitTransaction) => void,
  refusal: (err: unknown, of: string) => unknown,
): RemitTransaction[] {
  const of = 'notice' in found ? `encounter ${found.notice.encounter.encounter_number}` : `transfer ${found.transfer.processor_transfer_id}`;
  let transactions: RemitTransaction[];
  if ('notice' in found) {
    transactions = remit.noticeTransactions(found.notice, claimIds, npi);
    ctx.note(
      `${found.notice.encounter.encounter_number} was ${found.notice.encounter.status === 'DENIED' ? 'denied' : 'adjudicated with a benefit of 0.00'}: no transfer follows; this 835 is a notice (BPR H, 0.00) with each line's adjustments`,
    );
  } else {
    const r = remit.remitTransactions(found, claimIds, npi);
    if (r.none) {
      if (r.none.status === 'FAILED') throw new ConflictError(`${r.none.why}; no 835 written`, { code: 'transfer_failed' });
      throw new PendingError(`${r.none.why}; no 835 written`, { hint: `tpa settlement show ${found.transfer.encounter_id} --wait` });
    }
    transactions = r.transactions;
  }
  if (transactions.length === 0)
    throw new NotFoundError(`${of} pays nothing to NPI ${npi}, and none of its lines are that provider's`, { code: 'payee_not_found' });
  try {
    for (const t of transactions) check(t);
  } catch (err) {
    throw refusal(err, of);
  }
  if (!('notice' in found) && found.transfer.status === 'REFUNDED')
    ctx.note(
      `transfer ${found.transfer.processor_transfer_id} was refunded${found.transfer.refund_details?.refunded_at ? ` on ${found.transfer.refund_details.refunded_at.slice(0, 10)}` : ''}: this is its reversal; its payment is in the 835 of the period it was paid in (tpa settlement remit --from … --to …)`,
    );
  return transactions;
}
