// Exactly-once funding under real overlap: several `tpa fund approve` processes on one
// data dir, their funding transactions held at one barrier (test/helpers/barrier-hook.mjs) so that
// they begin together. Each round must end with one release and every other process refused with
// exit 4 naming that release: no 500, no SQLITE_BUSY. With the funding transaction begun DEFERRED
// instead of IMMEDIATE, the processes all stand inside at once and the round fails.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { Engine } from '../../src/engine/engine.js';
import { TPA_BIN, testEnv } from '../helpers/cli.js';
import { call, tempDir } from '../helpers/engine.js';
import { until } from '../helpers/barrier.js';

const HOOK = fileURLToPath(new URL('../helpers/barrier-hook.mjs', import.meta.url));
const PROCESSES = 4;
const ROUNDS = 5;

let home: ReturnType<typeof tempDir>;
beforeEach(() => {
  home = tempDir();
});
afterEach(() => home.remove());

/** Adjudicated encounters in the data dir, straight through the engine (the CLI is what is under test). */
function encounters(count: number): string[] {
  const engine = Engine.open({ dataDir: home.dir, env: { TPA_ADJUDICATION_DELAY: '0' } });
  try {
    // One service date each, so that none is a duplicate of another.
    return Array.from({ length: count }, (_, i) => {
      const serviceDate = new Date(Date.now() - (i + 1) * 86_400_000).toISOString().slice(0, 10);
      const ack = call(engine, 'POST', '/tpa-api/v1/claims/submit/', claimTemplate({ type: 'institutional', serviceDate }));
      expect(ack.status).toBe(201);
      return (ack.body as { external_claim_id: string }).external_claim_id;
    });
  } finally {
    engine.close();
  }
}

function approve(id: string, barrier: string, authCode: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = testEnv({ home: home.dir, env: { TPA_TEST_BARRIER_DIR: barrier } });
  const args = ['--import', HOOK, TPA_BIN, 'fund', 'approve', id, '--amount', '2460.00', '--auth-code', authCode, '--yes'];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, cwd: home.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const markers = (dir: string, kind: string) => readdirSync(dir).filter((f) => f.startsWith(`${kind}-`)).length;

/**
 * Opens the barrier once every process is inside the funding transaction (transactions that
 * overlap), or once one is inside and every other found the write lock taken, or once a process has
 * ended (something failed: the round's checks say what). Returns how many were inside at once.
 */
async function release(dir: string, ended: () => number): Promise<number> {
  await until(() => {
    const inside = markers(dir, 'inside');
    return ended() > 0 || inside === PROCESSES || (inside >= 1 && inside + markers(dir, 'blocked') >= PROCESSES);
  });
  const together = markers(dir, 'inside');
  writeFileSync(join(dir, 'go'), '');
  return together;
}

describe('fund approve from processes that begin together', () => {
  it(`funds each encounter exactly once over ${ROUNDS} rounds of ${PROCESSES} processes`, async () => {
    const ids = encounters(ROUNDS);
    for (const [round, id] of ids.entries()) {
      const barrier = join(home.dir, `barrier-${round}`);
      mkdirSync(barrier);
      let ended = 0;
      const runs = Promise.all(
        Array.from({ length: PROCESSES }, () => approve(id, barrier, `AUTH-20260302-ACME-${String(round + 1).padStart(4, '0')}`).finally(() => ended++)),
      );
      const together = await release(barrier, () => ended);
      const results = await runs;
      // The hook did hold each process's funding transaction.
      expect(markers(barrier, 'inside'), `round ${round}`).toBe(PROCESSES);
      expect(results.map((r) => r.code).sort(), `round ${round}: ${results.map((r) => r.stderr).join(' | ')}`).toEqual([0, ...Array(PROCESSES - 1).fill(4)]);
      for (const r of results) expect(r.stderr).not.toMatch(/SQLITE|internal_error|failed to process|at .*\.js:\d+/);
      // Each of the others found the write lock taken, and only one process at a time was inside.
      expect(markers(barrier, 'blocked'), `round ${round}`).toBe(PROCESSES - 1);
      expect(together, `round ${round}: processes inside the funding transaction at once`).toBe(1);
      const winner = JSON.parse(results.find((r) => r.code === 0)!.stdout) as { processor_transfer_id: string };
      for (const r of results.filter((x) => x.code === 4)) {
        expect(JSON.parse(r.stdout)).toMatchObject({ previous_processor_transfer_id: winner.processor_transfer_id, encounter_id: id });
      }
    }
  });
});
