// Durations on the command line and in settings: 30s, 10m, 2h, 2d (and 500ms); a bare number is seconds.
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!m) return undefined;
  const ms = Number(m[1]) * UNITS[m[2] ?? 's']!;
  return Number.isFinite(ms) ? Math.round(ms) : undefined;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s}s`;
  const m = Math.round(s / 60);
  return m < 120 ? `${m}m` : `${Math.round(m / 60)}h`;
}
