// Report periods as a finance desk names them (docs/periods.md): today, yesterday, this or last
// week, month, quarter or year, or one named outright (2026-11-23, 2026-11, 2026-W48, 2026-Q4, 2026).
// Calendar days are UTC days, the days of the service's timestamps and of "today on the engine
// clock"; weeks are ISO weeks, Monday to Sunday. Pure: "today" is given, never read.

/** A period's first and last day, both inclusive, as YYYY-MM-DD. */
export interface DateRange {
  from: string;
  to: string;
}

/** The names of the periods that follow today; the others name their dates outright. */
export const RELATIVE_PERIODS = [
  'today',
  'yesterday',
  'this-week',
  'last-week',
  'this-month',
  'last-month',
  'this-quarter',
  'last-quarter',
  'this-year',
  'last-year',
] as const;

/** What --period accepts, for help, completions and messages. */
export const PERIOD_FORMS = [...RELATIVE_PERIODS, 'YYYY-MM-DD', 'YYYY-MM', 'YYYY-Www', 'YYYY-Qn', 'YYYY'] as const;

const DAY_MS = 86_400_000;

const dayNumber = (date: string): number => Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / DAY_MS;
const dateOf = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The date `days` days after `date` (before, when negative). */
export function addDays(date: string, days: number): string {
  return dateOf(dayNumber(date) + days);
}

/** The last day of a month (1 to 12): 28 to 31. */
function lastDayOfMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function monthRange(year: number, month: number): DateRange {
  const mm = String(month).padStart(2, '0');
  return { from: `${yyyy(year)}-${mm}-01`, to: `${yyyy(year)}-${mm}-${String(lastDayOfMonth(year, month)).padStart(2, '0')}` };
}

const yyyy = (year: number) => String(year).padStart(4, '0');

/** The Monday of the ISO week holding `date`. */
function mondayOf(date: string): string {
  const day = dayNumber(date);
  // 1970-01-01 was a Thursday: day 0 is weekday 3 counted from Monday.
  const fromMonday = (((day + 3) % 7) + 7) % 7;
  return dateOf(day - fromMonday);
}

/** ISO week `week` of ISO year `year` (week 1 holds 4 January), or undefined when the year has no such week. */
function isoWeek(year: number, week: number): DateRange | undefined {
  const weeks = isoWeekOf(`${yyyy(year)}-12-28`).week;
  if (week < 1 || week > weeks) return undefined;
  const from = addDays(mondayOf(`${yyyy(year)}-01-04`), (week - 1) * 7);
  return { from, to: addDays(from, 6) };
}

/** The ISO year and week number of a date. */
export function isoWeekOf(date: string): { year: number; week: number } {
  // The week's Thursday decides its year.
  const thursday = addDays(mondayOf(date), 3);
  const year = Number(thursday.slice(0, 4));
  const week = Math.floor((dayNumber(thursday) - dayNumber(`${yyyy(year)}-01-01`)) / 7) + 1;
  return { year, week };
}

function quarterRange(year: number, quarter: number): DateRange {
  const first = (quarter - 1) * 3 + 1;
  return { from: monthRange(year, first).from, to: monthRange(year, first + 2).to };
}

function validDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= lastDayOfMonth(y, mo);
}

/** Whether a period's dates depend on today (so that today must be asked of the service first). */
export function isRelativePeriod(text: string): boolean {
  return (RELATIVE_PERIODS as readonly string[]).includes(text.trim().toLowerCase());
}

/** What is wrong with a --period value, or undefined when it names a period. */
export function periodProblem(text: string): string | undefined {
  if (isRelativePeriod(text)) return undefined;
  return namedRange(text.trim()) === undefined ? `"${text}" is not a period: use ${PERIOD_FORMS.join(', ')}` : undefined;
}

/** A period named by its dates (no today needed), or undefined. */
function namedRange(text: string): DateRange | undefined {
  let m: RegExpExecArray | null;
  if (validDate(text)) return { from: text, to: text };
  if ((m = /^(\d{4})-(\d{2})$/.exec(text))) {
    const month = Number(m[2]);
    return month >= 1 && month <= 12 ? monthRange(Number(m[1]), month) : undefined;
  }
  if ((m = /^(\d{4})-W(\d{2})$/i.exec(text))) return isoWeek(Number(m[1]), Number(m[2]));
  if ((m = /^(\d{4})-Q([1-4])$/i.exec(text))) return quarterRange(Number(m[1]), Number(m[2]));
  if ((m = /^(\d{4})$/.exec(text))) return { from: `${m[1]}-01-01`, to: `${m[1]}-12-31` };
  return undefined;
}

/**
 * The first and last day of a period, `today` (YYYY-MM-DD, the service's today) deciding the relative
 * ones. Whole calendar units: this-month runs to the month's last day, whatever today is.
 * Throws on a value periodProblem refuses.
 */
export function periodRange(text: string, today: string): DateRange {
  const name = text.trim().toLowerCase();
  const year = Number(today.slice(0, 4));
  const month = Number(today.slice(5, 7));
  switch (name) {
    case 'today':
      return { from: today, to: today };
    case 'yesterday': {
      const d = addDays(today, -1);
      return { from: d, to: d };
    }
    case 'this-week':
    case 'last-week': {
      const from = addDays(mondayOf(today), name === 'last-week' ? -7 : 0);
      return { from, to: addDays(from, 6) };
    }
    case 'this-month':
      return monthRange(year, month);
    case 'last-month':
      return month === 1 ? monthRange(year - 1, 12) : monthRange(year, month - 1);
    case 'this-quarter':
    case 'last-quarter': {
      const q = Math.floor((month - 1) / 3) + 1;
      if (name === 'this-quarter') return quarterRange(year, q);
      return q === 1 ? quarterRange(year - 1, 4) : quarterRange(year, q - 1);
    }
    case 'this-year':
      return { from: `${yyyy(year)}-01-01`, to: `${yyyy(year)}-12-31` };
    case 'last-year':
      return { from: `${yyyy(year - 1)}-01-01`, to: `${yyyy(year - 1)}-12-31` };
  }
  const range = namedRange(text.trim());
  if (!range) throw new Error(`not a period: ${text}`);
  return range;
}

/** The instants a range of days spans: from its first day's midnight (UTC) to the midnight after its last, exclusive. */
export function rangeInstants(range: DateRange): { startMs: number; endMs: number } {
  return { startMs: dayNumber(range.from) * DAY_MS, endMs: (dayNumber(range.to) + 1) * DAY_MS };
}

/** A span of instants: from startMs, inclusive, to endMs, exclusive (docs/periods.md "Where a span ends"). */
export interface InstantSpan {
  startMs: number;
  endMs: number;
}

/** Whether an instant is inside a span: at or after its start, before its end. The one test of every period figure. */
export function spanHolds(span: InstantSpan, ms: number): boolean {
  return ms >= span.startMs && ms < span.endMs;
}

/**
 * Where a span read now ends, exclusive: its own end, or, when it runs until now or would end
 * later, the instant after now (1 ms, the finest a timestamp is read to). An event stamped at now
 * has happened, so it is inside; nothing later has. Never before the span's start.
 */
export function spanEnd(startMs: number, endMs: number | undefined, nowMs: number): number {
  return Math.max(startMs, Math.min(endMs ?? Number.POSITIVE_INFINITY, nowMs + 1));
}

/** The last `durationMs` until now, now included, (now - duration, now]: runs that far apart share no instant. */
export function lastSpan(durationMs: number, nowMs: number): InstantSpan {
  const endMs = spanEnd(Number.NEGATIVE_INFINITY, undefined, nowMs);
  return { startMs: endMs - durationMs, endMs };
}

/**
 * An instant named on the command line: a date is its midnight (UTC), or the midnight after it as
 * the end of a span (a day is counted whole); a date-time is itself. Undefined when it is neither.
 */
export function instantOf(text: string, as: 'start' | 'end'): number | undefined {
  const t = text.trim();
  if (validDate(t)) return as === 'start' ? rangeInstants({ from: t, to: t }).startMs : rangeInstants({ from: t, to: t }).endMs;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(t)) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The UTC date of an instant. */
export function dateOfInstant(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
