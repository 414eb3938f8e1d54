// `tpa local serve` refuses a data directory on a network file system (docs/local.md "Sharing a
// sandbox"). A real NFS mount cannot be made in a test: statfs answers a network file system's
// type here (node:fs's statfsSync, as the kernel would), and everything else is real.
import { existsSync, statfsSync as realStatfs } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runTpa, useTpaHome } from '../../helpers/cli.js';
import { serve } from '../../helpers/server.js';

const statfs = vi.hoisted(() => ({ type: undefined as number | undefined, asked: [] as string[] }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const statfsSync = ((path: string, options?: object) => {
    statfs.asked.push(String(path));
    const real = fs.statfsSync(path, options as never);
    return statfs.type === undefined ? real : { ...real, type: statfs.type };
  }) as typeof fs.statfsSync;
  return { ...fs, default: { ...fs, statfsSync }, statfsSync };
});

const home = useTpaHome(beforeEach, afterEach);
afterEach(() => {
  statfs.type = undefined;
  statfs.asked = [];
});

describe.runIf(process.platform === 'linux')('local serve on a network file system', () => {
  it('a data directory on NFS is refused with exit 2, naming NFS and what to do instead; nothing is served or written', async () => {
    statfs.type = 0x6969;
    const r = await runTpa(['local', 'serve', '--port', '0'], { home: home.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the data directory ${home.dir} is on a network file system (NFS)`);
    expect(r.stderr).toMatch(/local disk of the host that serves it.*HTTPS/);
    expect(r.stdout).toBe('');
    expect(existsSync(join(home.dir, 'serve.lock'))).toBe(false);
    expect(existsSync(join(home.dir, 'local.sqlite'))).toBe(false);
  });

  it('a data directory not made yet is judged by the folder it would be made in (here SMB2)', async () => {
    statfs.type = 0xfe534d42;
    const dir = join(home.dir, 'not', 'yet');
    const r = await runTpa(['local', 'serve', '--port', '0'], { home: dir, cwd: home.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('(SMB2/3)');
    expect(statfs.asked).toContain(home.dir);
    expect(existsSync(dir)).toBe(false);
  });

  it('on the local disk the data directory is served: the real statfs type passes', async () => {
    expect(realStatfs(home.dir).type).not.toBe(0x6969);
    const server = await serve(home.dir);
    try {
      expect((await fetch(`${server.url}/tpa-api/v1/health/`)).status).toBeLessThan(500);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
