// A running `tpa local serve` holds its data directory: `tpa local reset` and a second server are
// refused while it runs (exit 4, naming the server's pid and port), and the lock goes with the
// server however it ends. Real servers (child processes on 127.0.0.1), resets in this process.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { serve, type Served } from '../helpers/server.js';

let home: ReturnType<typeof tempDir>;
const servers: Served[] = [];
beforeEach(() => {
  home = tempDir();
});
afterEach(async () => {
  // The ones a test has not ended already (a server killed by a signal has no exit code).
  await Promise.all(
    servers
      .splice(0)
      .filter((s) => s.child.exitCode === null && s.child.signalCode === null)
      .map((s) => s.stop()),
  );
  home.remove();
});

const start = async () => {
  const s = await serve(home.dir);
  servers.push(s);
  return s;
};
const reset = () => runTpa(['local', 'reset', '--yes'], { home: home.dir });
const health = (s: Served) => fetch(`${s.url}/tpa-api/v1/health`).then((r) => r.status);
/** Sends `signal` to the server and waits for it to exit. */
const ended = (s: Served, signal: NodeJS.Signals) =>
  new Promise<number | null>((resolve) => {
    s.child.once('exit', (code) => resolve(code));
    s.child.kill(signal);
  });

describe('tpa local serve holds its data directory', () => {
  it('local reset is refused while the server runs, naming its pid and port, and deletes nothing', async () => {
    const s = await start();
    const database = join(home.dir, 'local.sqlite');
    expect(existsSync(database)).toBe(true);
    const refused = await reset();
    expect(refused.code, refused.stderr).toBe(4);
    expect(refused.stderr).toContain(`held by a running \`tpa local serve\` (pid ${s.child.pid}, port ${new URL(s.url).port}, ${s.url}`);
    expect(refused.stderr).toMatch(/Nothing was deleted/);
    expect(existsSync(database)).toBe(true);
    // The server goes on, on the same database.
    expect(await health(s)).toBe(401);
    // Stopped (SIGTERM), it lets the data directory go.
    expect(await s.stop()).toBe(0);
    const done = await reset();
    expect(done.code, done.stderr).toBe(0);
    expect(existsSync(database)).toBe(false);
  });

  it('a second local serve on the same data directory is refused with exit 4, naming the first', async () => {
    const first = await start();
    const second = await serve(home.dir).then(
      async (s) => {
        await s.stop();
        return 'it served';
      },
      (err: Error) => err.message,
    );
    expect(second).toMatch(/^tpa local serve exited 4/);
    expect(second).toContain(`(pid ${first.child.pid}, port ${new URL(first.url).port}`);
    expect(second).toMatch(/one server per data directory/);
    expect(await health(first)).toBe(401);
  });

  it('lets the data directory go on SIGINT, and a killed server leaves no lock behind', async () => {
    const interrupted = await start();
    expect(await ended(interrupted, 'SIGINT')).toBe(0);
    expect((await reset()).code).toBe(0);

    const killed = await start();
    expect(await ended(killed, 'SIGKILL')).toBe(null);
    // Its note still names it, but the kernel let its lock go with it: taken over.
    expect(JSON.parse(readFileSync(join(home.dir, 'serve.lock.json'), 'utf8'))).toMatchObject({ pid: killed.child.pid });
    const after = await reset();
    expect(after.code, after.stderr).toBe(0);
    const next = await start();
    expect(await health(next)).toBe(401);
  });
});
