// kill -9 at random points: runs `tpa <args>` as a real process again and again, each killed
// (SIGKILL) after a random delay, until `kills` runs were killed. A run that ends by itself must
// exit 0. Returns the number of runs killed.
import { spawn } from 'node:child_process';
import { TPA_BIN } from './cli.js';

export interface KillOptions {
  home: string;
  /** Added to a clean environment (nothing of the parent's TPA_* settings). */
  env: Record<string, string>;
  kills: number;
  /** Each run is killed after minMs plus up to spreadMs. */
  minMs: number;
  spreadMs: number;
  /** The random source of the delays (a seeded one replays a run); Math.random by default. */
  random?: () => number;
  /** After each killed run (the number killed so far). */
  afterKill?: (killed: number) => Promise<void>;
  /** A run that exits by itself fails the test through this check. */
  onExit: (code: number) => void;
}

export async function killRepeatedly(args: string[], o: KillOptions): Promise<number> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('TPA_')) env[k] = v;
  Object.assign(env, { TPA_HOME: o.home, TPA_KEYRING: 'off', TPA_ADJUDICATION_DELAY: '0', ...o.env });
  let killed = 0;
  for (let i = 0; killed < o.kills && i < o.kills * 2; i++) {
    const child = spawn(process.execPath, [TPA_BIN, ...args], { env, cwd: o.home, stdio: 'ignore' });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.minMs + Math.floor((o.random ?? Math.random)() * o.spreadMs));
    const code = await exited;
    clearTimeout(timer);
    if (code !== null) {
      o.onExit(code);
      continue;
    }
    killed++;
    await o.afterKill?.(killed);
  }
  return killed;
}
