// The benches' measurement of a child process (bench/lib/ledger.mjs runNode): wall time, lines of
// stdout, peak RSS and CPU from the child's own usage; one function for tpa runs (runCli) and the
// X12 bench's node runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
// @ts-expect-error: a bench module, plain JavaScript
import { runNode } from '../../bench/lib/ledger.mjs';

it('runNode measures a node child: its stdout lines, peak RSS and time; a failure says its command and stderr', async () => {
  const work = mkdtempSync(join(tmpdir(), 'tpa-bench-lib-'));
  try {
    const r = await runNode(['-e', 'console.log(1); console.log(2); console.error("note")'], process.env, work);
    expect(r.lines).toBe(2);
    expect(r.stderr).toBe('note\n');
    expect(r.rssMb).toBeGreaterThan(1);
    expect(r.seconds).toBeGreaterThan(0);
    expect(r.cpuSeconds).toBeGreaterThan(0);
    await expect(runNode(['-e', 'console.error("broken"); process.exit(3)'], process.env, work)).rejects.toThrow(/node -e .* exited 3: broken/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
