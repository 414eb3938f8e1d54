// The progress line of a long job (docs/jobs.md "Long jobs"), as text that fits one terminal line:
// what is being done, how far (a bar where there is room), the rate, a wait and what it waits for,
// and the time left. Pure: the terminal wiring (src/cli/status-line.ts) redraws it in place.
import { count } from './format.js';

export interface ProgressState {
  /** What is being done: "selecting", "reading the ledger", "waiting for adjudication of sub_…". */
  label?: string;
  done?: number;
  total?: number;
  /** What is counted: "claims". */
  unit?: string;
  /** A word on the count: "200 skipped". */
  detail?: string;
  /** Pieces a second of the work that costs time. */
  rate?: number;
  /** The length of the service's rate window, when known: the rate is said per that window (10/s under a limit a second, never 558/min). */
  rateWindowMs?: number;
  /** The rate limit that paces the job: then the rate shown is the limit ("100/min limit"), not the burst rate. */
  limit?: { count: number; windowMs: number };
  leftMs?: number;
  /**
   * A wait, said with its countdown: "rate limited, resuming in" 42s. With `thenLeftMs` (the time
   * left once the wait is over), the time left is counted from the wait's end at every redraw.
   */
  wait?: { untilMs: number; text: string; thenLeftMs?: number };
  /** When the job began, for "1m02s so far" (a job with no total). */
  sinceMs?: number;
  /** The last word of a finished job: "done in 2m31s". */
  end?: string;
}

/** A count for people, rounded to a whole number (a rate), with thousands separators. */
const whole = (n: number) => count(Math.round(n));

/** A duration as a person reads it on a progress line: 42s, 3m05s, 19m, 1h05m. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m}m`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/**
 * A rate per second, or per minute when it is slow (1.7 a second reads better as 100/min); per the
 * service's rate window when it is a second or a minute, so that the rate and the limit read alike.
 */
export function rateText(perSecond: number, windowMs?: number): string {
  if (windowMs === 1000) return `${whole(perSecond)}/s`;
  if (windowMs === 60_000) return `${whole(perSecond * 60)}/min`;
  return perSecond < 10 ? `${whole(perSecond * 60)}/min` : `${whole(perSecond)}/s`;
}

/** A rate limit as a rate: "100/min", "5/s", "1,000/h", or "500 per 30s" for another window. */
export function limitText(l: { count: number; windowMs: number }): string {
  const per = l.windowMs === 1000 ? '/s' : l.windowMs === 60_000 ? '/min' : l.windowMs === 3_600_000 ? '/h' : ` per ${duration(l.windowMs)}`;
  return `${whole(l.count)}${per}`;
}

/** The time left at `nowMs`: during a wait that says what follows it, the wait's end plus what is left after it. */
function leftAt(p: ProgressState, nowMs: number): number | undefined {
  if (p.wait?.thenLeftMs === undefined) return p.leftMs;
  return Math.max(0, p.wait.untilMs - nowMs) + p.wait.thenLeftMs;
}

/**
 * The line at `nowMs`, shorter than `width` (a line as wide as the terminal wraps on some, and a
 * wrapped line cannot be redrawn in place): parts are left out, least useful first (the bar, the
 * detail, the rate, the time so far), then the end is cut.
 */
export function progressLine(p: ProgressState, width: number, nowMs: number): string {
  const head = p.done !== undefined ? `${whole(p.done)}${p.total !== undefined ? ` of ${whole(p.total)}` : ''}${p.unit ? ` ${p.unit}` : ''}` : undefined;
  // Each part with how long it survives: the lower, the sooner it is left out.
  // A part may have a shorter form, tried before the part is left out.
  const parts: { text: string; keep: number; short?: string }[] = [];
  if (p.label !== undefined) parts.push({ text: p.label, keep: 9 });
  if (head !== undefined) parts.push({ text: head, keep: 10 });
  if (p.detail) parts.push({ text: `(${p.detail})`, keep: 2 });
  if (p.limit !== undefined && p.end === undefined) parts.push({ text: `${limitText(p.limit)} limit`, keep: 3, short: limitText(p.limit) });
  else if (p.rate !== undefined && p.rate > 0 && p.end === undefined) parts.push({ text: rateText(p.rate, p.rateWindowMs), keep: 3 });
  if (p.wait && p.wait.untilMs > nowMs) parts.push({ text: `${p.wait.text} ${duration(p.wait.untilMs - nowMs)}`, keep: 8 });
  if (p.sinceMs !== undefined && p.end === undefined) parts.push({ text: `${duration(nowMs - p.sinceMs)} so far`, keep: 4 });
  const leftMs = leftAt(p, nowMs);
  if (p.end === undefined && leftMs !== undefined && (p.total === undefined || (p.done ?? 0) < p.total))
    parts.push({ text: `about ${duration(leftMs)} left`, keep: 7 });
  if (p.end) parts.push({ text: p.end, keep: 6 });
  const room = Math.max(10, width - 1);
  const join = (list: typeof parts) => list.map((x, i) => (i === 0 ? x.text : list[i - 1]!.keep === 9 ? `: ${x.text}` : ` · ${x.text}`)).join('');
  let kept = parts;
  while (join(kept).length > room && kept.length > 1) {
    const least = kept.reduce((a, b) => (b.keep < a.keep ? b : a));
    kept = least.short !== undefined ? kept.map((x) => (x === least ? { text: least.short!, keep: least.keep } : x)) : kept.filter((x) => x !== least);
  }
  let text = join(kept);
  if (text.length > room) return `${text.slice(0, room - 1)}…`;
  // The bar of twenty cells, before the count, where the line leaves room for it.
  if (p.total !== undefined && p.total > 0 && p.done !== undefined && head !== undefined && kept.length === parts.length) {
    const cells = 20;
    if (room - text.length - 3 >= cells) {
      const filled = Math.round((Math.min(p.done, p.total) / p.total) * cells);
      const at = text.indexOf(head);
      text = `${text.slice(0, at)}[${'#'.repeat(filled)}${'.'.repeat(cells - filled)}] ${text.slice(at)}`;
    }
  }
  return text;
}
