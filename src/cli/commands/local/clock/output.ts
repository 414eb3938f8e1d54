// What every `tpa local clock` verb answers: the engine time, how the clock runs, and how far the
// engine has recorded.
import type { Engine } from '../../../../engine/engine.js';
import type { TableTools } from '../../../../render/output.js';

type ClockStatus = ReturnType<Engine['clock']>;

export function clockOutput(status: ClockStatus) {
  const how: Record<string, string> = {
    TPA_CLOCK: 'frozen by TPA_CLOCK for this process',
    frozen: 'frozen (tpa local clock set)',
    offset: `real time shifted by ${status.stored?.mode === 'offset' ? formatDurationSigned(status.stored.offset_ms) : ''}`,
    real: 'real time',
  };
  return {
    data: status,
    table: (t: TableTools) =>
      t.keyValues([
        ['Engine time', status.now],
        ['Clock', how[status.source] ?? status.source],
        ...(status.held
          ? ([['Held', `the clock says ${status.clock}, earlier than the latest time recorded: the engine's time stays at ${status.now}`]] as [
              string,
              string,
            ][])
          : []),
        ['Recorded until', status.recorded_until ?? 'nothing recorded yet'],
      ]),
  };
}

function formatDurationSigned(ms: number): string {
  const sign = ms < 0 ? '-' : '+';
  const abs = Math.abs(ms);
  const d = Math.floor(abs / 86_400_000);
  const h = Math.floor((abs % 86_400_000) / 3_600_000);
  const m = Math.floor((abs % 3_600_000) / 60_000);
  const s = Math.floor((abs % 60_000) / 1000);
  return `${sign}${[d && `${d}d`, h && `${h}h`, m && `${m}m`, s && `${s}s`].filter(Boolean).join(' ') || '0s'}`;
}
