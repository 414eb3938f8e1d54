// tpa activity: what happened in a span of time (docs/periods.md "tpa activity"): claims submitted,
// adjudicated, pended and denied, approvals, transfers settled, failed and refunded, read from the
// ledger's status histories over a window of service dates, on the service's clock.
import { withCsvAmounts } from '../../../domain/csv.js';
import type { ActivityEvent, ActivityKind, KindTotal } from '../../../domain/activity.js';
import { ACTIVITY_KINDS, KIND_AMOUNT } from '../../../domain/activity.js';
import { centsToAmount, formatCentsGrouped } from '../../../domain/money.js';
import { addDays, dateOfInstant, instantOf, isRelativePeriod, lastSpan, periodProblem, periodRange, rangeInstants, spanEnd } from '../../../domain/period.js';
import { npiProblem } from '../../../domain/validation.js';
import { UsageError, ValidationFailed } from '../../../errors.js';
import { count } from '../../../render/format.js';
import type { CommandOutput, TableTools } from '../../../render/output.js';
import type { Context } from '../../context.js';
import { listValue, lookbackDays, lookbackSpec, periodSpec, readWait, type ScanInfo, scanLine, scanOf, scanProgress } from '../../options.js';
import { counter } from '../../status-line.js';
import { option, verb, type OptionValues } from '../../verb.js';

/** Without --since, --period or --from: the last day. */
const DEFAULT_SINCE = '24h';

const options = {
  since: option.text(
    '--since <when>',
    'from then until now, now included: yesterday, today, a period name, a date, a date-time, or a duration such as 24h or 7d (default 24h)',
    {
      values: ['yesterday', 'today', 'this-week', 'this-month'],
    },
  ),
  period: periodSpec,
  from: option.text('--from <when>', 'events at or after this date (its whole day, UTC) or date-time'),
  to: option.text('--to <when>', 'events until the end of this date (UTC), or before this date-time; default until now, now included'),
  npi: option.text('--npi <npi>', "only the encounters this provider is on, each amount its own share (its lines' charges and benefit, its payouts)"),
  kind: option.list('--kind <kind...>', `only these kinds: ${ACTIVITY_KINDS.join(', ')}`, { values: ACTIVITY_KINDS }),
  totals: option.flag('--totals', 'only the count and amount of each kind (csv and ndjson: one row a kind)'),
  lookback: lookbackSpec,
};

export const activity = verb({
  name: 'activity',
  description: 'what happened: claims, approvals and transfers, counted by kind and listed',
  options,
  // An event, or with --totals a kind's count.
  fields: ['time', 'kind', 'encounter_id', 'encounter_number', 'service_date', 'provider_npi', 'provider_name', 'amount', 'amount_of', 'count'],
  examples: [
    'tpa activity --since yesterday',
    'tpa activity --period yesterday --kind denied pended',
    'tpa activity --since 7d --totals -o csv',
    'tpa activity --from 2026-11-01 --to 2026-11-30 --npi 1234567893 -o ndjson',
  ],
  run(ctx, _args, opts) {
    return activityOf(ctx, opts);
  },
});

type Options = OptionValues<typeof options>;

interface SpanChoice {
  /** How the span was asked for, for the heading. */
  label: string;
  startMs: number;
  /** Exclusive; undefined for "until now". */
  endMs: number | undefined;
}

/** The span the options name, given the service's now; every problem is exit 2. */
function spanOf(opts: Options, now: string): SpanChoice {
  const given = [
    opts.since !== undefined && '--since',
    opts.period !== undefined && '--period',
    (opts.from !== undefined || opts.to !== undefined) && '--from/--to',
  ].filter(Boolean);
  if (given.length > 1) throw new UsageError(`${given.join(' and ')} each name the span: give one of them`);
  const nowMs = Date.parse(now);
  const today = now.slice(0, 10);
  if (opts.period !== undefined) {
    const problem = periodProblem(opts.period);
    if (problem) throw new ValidationFailed(`--period: ${problem}`);
    const range = periodRange(opts.period, today);
    const { startMs, endMs } = rangeInstants(range);
    return { label: `${opts.period} (${range.from === range.to ? range.from : `${range.from} to ${range.to}`})`, startMs, endMs };
  }
  if (opts.from !== undefined || opts.to !== undefined) {
    if (opts.from === undefined) throw new UsageError('--to needs --from: the span starts somewhere');
    const startMs = instantOf(opts.from, 'start');
    if (startMs === undefined) throw new ValidationFailed(`--from: "${opts.from}" is not a date (YYYY-MM-DD) or a date-time (2026-11-25T09:00:00Z)`);
    const endMs = opts.to === undefined ? undefined : instantOf(opts.to, 'end');
    if (opts.to !== undefined && endMs === undefined)
      throw new ValidationFailed(`--to: "${opts.to}" is not a date (YYYY-MM-DD) or a date-time (2026-11-25T18:00:00Z)`);
    if (endMs !== undefined && endMs <= startMs) throw new ValidationFailed('--to is not after --from');
    return { label: `from ${opts.from}${opts.to === undefined ? '' : ` to ${opts.to}`}`, startMs, endMs };
  }
  const since = (opts.since ?? DEFAULT_SINCE).trim();
  if (isRelativePeriod(since) || periodProblem(since) === undefined) {
    return { label: `since ${since}`, startMs: rangeInstants(periodRange(since, today)).startMs, endMs: undefined };
  }
  const at = instantOf(since, 'start');
  if (at !== undefined) return { label: `since ${since}`, startMs: at, endMs: undefined };
  const m = /^(\d+)(m|h|d|w)$/i.exec(since);
  if (!m) throw new ValidationFailed(`--since: "${since}" is not a period, a date, a date-time or a duration such as 24h or 7d`);
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 }[m[2]!.toLowerCase() as 'm' | 'h' | 'd' | 'w'];
  return { label: `the last ${since}`, startMs: lastSpan(Number(m[1]) * unit, nowMs).startMs, endMs: undefined };
}

function kindsOf(kind: string[] | undefined): ActivityKind[] {
  const names = listValue(kind).map((k) => k.toLowerCase());
  if (names.length === 0) return [...ACTIVITY_KINDS];
  const unknown = names.filter((k) => !(ACTIVITY_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0) throw new ValidationFailed(`--kind: ${unknown.map((k) => `"${k}"`).join(', ')} is not one of ${ACTIVITY_KINDS.join(', ')}`);
  return ACTIVITY_KINDS.filter((k) => names.includes(k));
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

const eventRow = (e: ActivityEvent) => ({
  time: e.time,
  kind: e.kind,
  encounter_id: e.encounter_id,
  encounter_number: e.encounter_number,
  service_date: e.service_date,
  provider_npi: e.provider_npi,
  provider_name: e.provider_name,
  amount: e.amountCents === null ? null : centsToAmount(e.amountCents),
  amount_of: KIND_AMOUNT[e.kind] === 'charges' ? 'charges' : 'benefit',
});
const EVENT_COLUMNS = Object.keys(
  eventRow({ time: '', kind: 'submitted', encounter_id: '', encounter_number: '', service_date: '', provider_npi: '', provider_name: '', amountCents: null }),
);

const totalRow = (t: KindTotal) => ({
  kind: t.kind,
  count: t.count,
  amount: centsToAmount(t.amountCents),
  amount_of: KIND_AMOUNT[t.kind] === 'charges' ? 'charges' : 'benefit',
});

async function activityOf(ctx: Context, opts: Options): Promise<CommandOutput> {
  // Everything that can be checked without the service is, first (exit 2, nothing read).
  if (opts.npi !== undefined) {
    const problem = npiProblem(opts.npi);
    if (problem) throw new ValidationFailed(`--npi: ${problem}`);
  }
  const kinds = kindsOf(opts.kind);
  const lookback = lookbackDays(opts.lookback);
  if (opts.period !== undefined && periodProblem(opts.period)) throw new ValidationFailed(`--period: ${periodProblem(opts.period)}`);
  spanOf(opts, '1970-01-01T00:00:00Z');
  const [{ scanActivity, serviceNow }, { activityTotals, sortEvents }] = await Promise.all([
    import('../../../client/activity.js'),
    import('../../../domain/activity.js'),
  ]);
  const client = await ctx.client();
  const now = await serviceNow(client);
  const span = spanOf(opts, now);
  // A span holds now: an event stamped at the service's time has happened (domain/period.ts
  // spanEnd). One that runs until now, or would end later, ends at the instant after now.
  const nowMs = Date.parse(now);
  const endMs = spanEnd(span.startMs, span.endMs, nowMs);
  // A claim is sent once its service is rendered, so an event of the span concerns a service date
  // on or before the span's last day (and, with --lookback, on or after its first day minus it).
  const lastDay = dateOfInstant(endMs - 1);
  const serviceTo = [lastDay, now.slice(0, 10)].sort()[0]!;
  const serviceFrom = lookback === 'all' ? undefined : addDays(dateOfInstant(span.startMs), -lookback);
  const progress = scanProgress(ctx);
  // With --npi, each event's amount is that provider's share (docs/periods.md "With --npi"): its
  // lines' charges and benefit, its payouts in the transfer.
  const sharing = counter(ctx.status, "reading the provider's lines and payouts", 'read');
  const { events: all, entriesRead } = await scanActivity(
    client,
    { start_date: serviceFrom, end_date: serviceTo, provider_npi: opts.npi },
    { startMs: span.startMs, endMs },
    progress.onProgress,
    opts.npi === undefined
      ? undefined
      : {
          onProgress: (p) => sharing(p.read, p.total, readWait(p)),
        },
  );
  progress.done();
  // What a partial read (--lookback) left out is said, never silent: its events in the span are not counted.
  const scan = await scanOf(ctx, serviceFrom, serviceTo, lookback, entriesRead, { provider_npi: opts.npi });
  const events = sortEvents(all.filter((e) => kinds.includes(e.kind)));
  const totals = activityTotals(events, kinds);
  const data = {
    span: { from: iso(span.startMs), to: iso(endMs), as_of: now },
    provider_npi: opts.npi ?? null,
    scan,
    totals: totals.map(totalRow),
    events: events.map(eventRow),
  };
  const rows = opts.totals ? data.totals : data.events;
  if (ctx.format === 'csv' && rows.length === 0) {
    // A CSV always has its header, even with no rows.
    ctx.io.stdout.write(`${EVENT_COLUMNS.join(',')}\n`);
    return { exitCode: 0 };
  }
  return {
    data,
    // In CSV an amount has two decimals, as a spreadsheet shows money (domain/csv.ts csvAmount).
    items: ctx.format === 'csv' ? (rows as Record<string, unknown>[]).map((r) => withCsvAmounts(r, ['amount'])) : rows,
    table: (t) => activityTable(t, span.label, { ...data.span, to: endMs > nowMs ? 'now' : data.span.to }, scan, totals, opts.totals ? [] : events),
  };
}

function activityTable(
  t: TableTools,
  label: string,
  span: { from: string; to: string; as_of: string },
  scan: ScanInfo,
  totals: KindTotal[],
  events: ActivityEvent[],
): string {
  const parts = [
    `${t.c.bold(`Activity ${label}`)}\n${span.from} to ${span.to} (UTC), as of ${span.as_of}\n${scanLine(scan)}`,
    t.table(
      ['Kind', { header: 'Count', align: 'right' }, { header: 'Amount', align: 'right' }, 'Amount of'],
      totals.map((k) => [k.kind, count(k.count), formatCentsGrouped(k.amountCents), KIND_AMOUNT[k.kind] === 'charges' ? 'charges' : 'benefit']),
    ),
  ];
  const wide = t.width === undefined || t.width >= 110;
  if (events.length > 0) {
    parts.push(
      t.c.bold('Events'),
      // The provider where the width allows (it is in every other format): one line per event at 80 columns.
      t.table(
        ['Time (UTC)', 'Kind', 'Encounter', ...(wide ? ['Provider'] : []), { header: 'Amount', align: 'right' }],
        events.map((e) => [
          e.time.replace('T', ' ').replace(/(\.\d+)?Z$/, ''),
          e.kind,
          e.encounter_id,
          ...(wide ? [`${e.provider_name} (${e.provider_npi})`] : []),
          e.amountCents === null ? '—' : formatCentsGrouped(e.amountCents),
        ]),
        { list: true },
      ),
    );
  } else if (totals.every((k) => k.count === 0)) parts.push('Nothing happened in the span.');
  return parts.join('\n\n');
}
