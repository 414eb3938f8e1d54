// kill -9 at random instants: runs `tpa <args>` as a real process again and again, each killed
// (SIGKILL) at an instant drawn from [minMs, minMs + spreadMs) after its start, until `kills` runs
// were killed or a run ends by itself (the work is done; a run that ends by itself must exit 0). An
// instant can fall anywhere: before the process has opened the database, or even created it, while
// it writes, after it is done. The checks after each kill must hold for every one of them.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { until } from './barrier.js';
import { TPA_BIN, testEnv } from './cli.js';

export interface KillOptions {
  home: string;
  /** Added to a clean environment (nothing of the parent's TPA_* settings). */
  env: Record<string, string>;
  kills: number;
  /** Each run is killed minMs plus up to spreadMs after it starts. */
  minMs: number;
  spreadMs: number;
  /**
   * A measure of the work done (e.g. a journal's size). When given, each instant is drawn from the
   * moment it first grows in that run, not from the run's start: the kills land inside the work
   * however slowly the process starts.
   */
  progress?: () => number;
  /** The random source of the instants (a seeded one replays a run); Math.random by default. */
  random?: () => number;
  /** After each killed run (the number killed so far). */
  afterKill?: (killed: number) => Promise<void>;
  /** A run that exits by itself fails the test through this check. */
  onExit: (code: number) => void;
}

export interface KillReport {
  /** Runs killed. */
  killed: number;
  /** Whether a run ended by itself before `kills` runs were killed: the work was done. */
  finished: boolean;
}

export async function killRepeatedly(args: string[], o: KillOptions): Promise<KillReport> {
  const env = testEnv({ home: o.home, env: o.env });
  let killed = 0;
  while (killed < o.kills) {
    const child = spawn(process.execPath, [TPA_BIN, ...args], { env, cwd: o.home, stdio: 'ignore' });
    let ended = false;
    const exited = new Promise<number | null>((r) =>
      child.on('exit', (code) => {
        ended = true;
        r(code);
      }),
    );
    if (o.progress) {
      const before = o.progress();
      await until(() => ended || o.progress!() > before);
    }
    // The instant of the kill; the run may well end before it (then it is not killed).
    const timer = setTimeout(() => child.kill('SIGKILL'), o.minMs + Math.floor((o.random ?? Math.random)() * o.spreadMs));
    const code = await exited;
    clearTimeout(timer);
    if (code !== null) {
      o.onExit(code);
      return { killed, finished: true };
    }
    killed++;
    await o.afterKill?.(killed);
  }
  return { killed, finished: false };
}

/** How many records of a type a journal (NDJSON) holds so far; 0 before it exists. */
export function journalRecords(file: string, type: string): number {
  if (!existsSync(file)) return 0;
  return readFileSync(file, 'utf8').split(`"type":"${type}"`).length - 1;
}
