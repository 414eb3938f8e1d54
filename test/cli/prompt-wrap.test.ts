// Every text a prompt shows is wrapped at spaces, as the question is (src/cli/prompt.ts): a
// validation error, the answer echoed after the question, the choices. Under a real terminal at
// 80×24, the screen is read back as the approver sees it: no amount, id or code is cut across rows.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { parseTypedAmount } from '../../src/domain/money.js';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { adjudicatedEncounter } from '../helpers/encounters.js';
import { BACKSPACE, ENTER, type PtyResult, ptyRun, screenAtStep, type Step } from '../helpers/pty.js';

const env = { TPA_CLOCK: '2026-06-30T12:00:00Z' };
const cols = 80;
const rows = 24;
let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: home, remove: cleanup } = tempDir());
});
afterEach(() => cleanup());

const run = (args: string[]) => runTpa(args, { home, env });
const rubOut = (text: string) => Array(text.length).fill(BACKSPACE) as string[];

function expectCompleted(r: PtyResult): void {
  expect(r.error, `${r.error}\n--- screen ---\n${r.output}`).toBeNull();
  expect(r.timed_out).toBe(false);
}

/** The rows of `screen` from the one starting with `from` to the one holding `to`, each trimmed, joined by spaces: a word cut across rows shows as two. */
function block(screen: string[], from: string, to: string): string {
  const start = screen.findIndex((l) => l.startsWith(from));
  const end = screen.findIndex((l, i) => i >= start && l.includes(to));
  expect(start, screen.join('\n')).toBeGreaterThanOrEqual(0);
  expect(end, screen.join('\n')).toBeGreaterThanOrEqual(start);
  return screen
    .slice(start, end + 1)
    .map((l) => l.trim())
    .join(' ');
}

describe('prompts at 80×24', () => {
  it('fund approve: the used-code and not-an-amount errors wrap at spaces, each id, code and amount whole', async () => {
    const first = await adjudicatedEncounter(run, home, { template: ['--type', 'institutional', '--patient', 'MBR-1002'], env });
    const second = await adjudicatedEncounter(run, home, { template: ['--type', 'institutional', '--patient', 'MBR-1003'], env });
    const used = 'AUTH-20260630-ACME-0001';
    const ok = await run(['fund', 'approve', first.id, '--auth-code', used, '--amount', first.amount, '--yes']);
    expect(ok.code, ok.stderr).toBe(0);
    const steps: Step[] = [
      { expect: '? Authorization code', send: `${used}${ENTER}` },
      { expect: 'is free' },
      { send: [...rubOut(used), ENTER] },
      { expect: 'to confirm', send: `y${ENTER}` },
      { expect: 'to send nothing' },
      { send: [...rubOut('y'), `2,460.00${ENTER}`] },
      { expect: 'Fund release approved' },
    ];
    const r = await ptyRun(['fund', 'approve', second.id], steps, { home, env, cols, rows });
    expectCompleted(r);
    expect(r.exit_code, r.output).toBe(0);

    const usedError = block(await screenAtStep(r, 1, cols, rows), `> ${used}`, 'is free');
    expect(usedError).toMatch(new RegExp(`^> ${used} is used already \\(.*${first.id}.*\\): each approval has its own code; AUTH-20260630-ACME-0002 is free$`));

    const problem = parseTypedAmount('y');
    expect('problem' in problem).toBe(true);
    const amountError = block(await screenAtStep(r, 4, cols, rows), '> "y"', 'to send nothing');
    expect(amountError).toBe(`> ${(problem as { problem: string }).problem}: type 2,460.00, or press Ctrl-C to send nothing`);
  });

  it("fund run's open-run offer: the choice echoed after the question goes whole onto a line of its own", async () => {
    const claims = [
      claimTemplate({ type: 'institutional', patient: 'MBR-1002', serviceDate: '2026-06-01' }),
      claimTemplate({ type: 'professional', npi: '1582736496', cpt: ['29881'], patient: 'MBR-1001', serviceDate: '2026-06-03' }),
    ];
    writeFileSync(join(home, 'claims.ndjson'), `${claims.map((c) => JSON.stringify(c)).join('\n')}\n`);
    expect((await run(['claim', 'submit', 'claims.ndjson', '-o', 'ndjson'])).code).toBe(0);
    const { total } = (await run(['fund', 'run', '--dry-run', '-o', 'json'])).json<{ total: number }>();
    const prefix = 'AUTH-20260630-ACME3';
    // A run that stopped before its approvals (the service failing them) stays open.
    const stopped = await runTpa(['fund', 'run', '--auth-code-prefix', prefix, '--expect-total', String(total), '--yes'], {
      home,
      env: { ...env, TPA_FAULT: 'error-500:/funding/approve/' },
    });
    expect(stopped.stderr).toMatch(/stopped: /);
    const steps: Step[] = [{ expect: 'or quit?', send: ENTER }, { expect: 'to confirm', send: `${total}${ENTER}` }, { expect: 'approved of' }];
    const r = await ptyRun(['fund', 'run'], steps, { home, env, cols, rows });
    expectCompleted(r);
    expect(r.exit_code, r.output).toBe(0);
    const screen = await screenAtStep(r, 1, cols, rows);
    const echoed = screen.findIndex((l) => l.includes('Continue it, close it, or quit?'));
    expect(echoed, screen.join('\n')).toBeGreaterThanOrEqual(0);
    expect(screen[echoed + 1], screen.join('\n')).toMatch(new RegExp(`^ +Continue ${prefix}: \\d+ approvals left, [\\d,]+\\.\\d\\d$`));
  });
});

describe('a y/N question', () => {
  it('keeps room for " (y/N) " on its last line: wrapped shorter when it would not fit, so that "(y/N)" is never cut at the edge', async () => {
    const { fitQuestion } = await import('../../src/cli/prompt.js');
    // 73 columns: it fits the line after "? ", but " (y/N)" after it would be cut at the edge.
    const question = 'Delete every claim and change in /tmp/tmp.m2rjfttBWX/local.sqlite; do it?';
    expect(question.length).toBe(73);
    const lines = fitQuestion(question, 80, 8).split('\n');
    // "? " before the first line; " (y/N) " and the key typed after the last.
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(78);
    expect(lines.at(-1)!.length + 8).toBeLessThanOrEqual(78);
    expect(lines.join(' ')).toBe(question);
    // A last line with room is left as it is.
    expect(fitQuestion('Send it?', 80, 8)).toBe('Send it?');
  });
});
