// The interactive path of `tpa fund approve`: the CLI runs under a real pseudo-terminal (prompts
// only appear when stdin and stdout are terminals), driven by test/helpers/pty-drive.py, which
// waits for each prompt's text before typing into it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTpa, tpa, useTpaHome } from '../helpers/cli.js';
import { adjudicatedEncounter } from '../helpers/encounters.js';
import { BACKSPACE, ENTER, type PtyResult, ptyRun, type Step } from '../helpers/pty.js';

const home = useTpaHome(beforeEach, afterEach);
const run = (args: string[]) => home.run(args);

/** Runs `tpa <args>` under a pty of `cols` columns (40 rows), typing `steps`. */
function tpaInteractive(args: string[], steps: Step[], extraEnv: Record<string, string> = {}, cols = 120): Promise<PtyResult> {
  return ptyRun(args, steps, { home: home.dir, env: extraEnv, cols, rows: 40 });
}

/** Fails with the screen as the approver saw it when the driver did not get through its steps. */
function expectCompleted(r: PtyResult): void {
  expect(r.error, `${r.error}\n--- screen ---\n${r.output}`).toBeNull();
  expect(r.timed_out).toBe(false);
}

/** An adjudicated institutional encounter (benefit 2,460.00, four providers), made with the real CLI. */
async function adjudicated(): Promise<string> {
  const e = await adjudicatedEncounter(run, home.dir);
  expect(e.response).toMatchObject({ status: 'ADJUDICATED', adjudication: { benefit_amount: 2460 } });
  return e.id;
}

/** The one confirmation: the amount typed, never pre-filled (the prompt wraps at spaces, so only its end is waited for). */
const CONFIRM = 'to confirm';
/** The prompt's text, its wrapped lines joined. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ');

describe('tpa fund approve, interactively on a terminal', () => {
  it('shows the review, takes a typed authorization code, and releases the funds once the amount is typed', async () => {
    const id = await adjudicated();
    const r = await tpaInteractive(
      ['fund', 'approve', id],
      [
        { expect: 'Maria Garcia' },
        { expect: '? Authorization code', send: `AUTH-PTY-7731${ENTER}` },
        { expect: CONFIRM, send: `2460.00${ENTER}` },
        { expect: 'Fund release approved' },
      ],
    );
    expectCompleted(r);
    expect(r.exit_code, r.output).toBe(0);
    const screen = r.output;
    // The review, before any question.
    const review = screen.slice(0, screen.indexOf('? Authorization code'));
    expect(review).toContain(`Fund release for encounter`);
    expect(review).toContain(id);
    expect(review).toMatch(/Patient\s+Maria Garcia/);
    expect(review).toMatch(/Benefit amount\s+2,460\.00/);
    expect(review).toMatch(/Fees \(2\.2% \+ 0\.30 each\)\s+55\.32/);
    expect(review).toMatch(/Fee\W+Net/);
    for (const [role, amount, fee, net] of [
      ['FACILITY', '1,300.00', '28.90', '1,271.10'],
      ['SURGEON', '408.00', '9.28', '398.72'],
      ['ANESTHESIA', '612.00', '13.76', '598.24'],
      ['PATHOLOGY', '140.00', '3.38', '136.62'],
    ] as const) {
      expect(review).toMatch(new RegExp(`${role}\\W+${amount.replace(/\./g, '\\.')}\\W+${fee.replace('.', '\\.')}\\W+${net.replace(/\./g, '\\.')}`));
    }
    // Nothing is pre-filled: the amount is shown in the question and typed back; nothing warned that it differs.
    expect(oneLine(screen)).toMatch(/which cannot be undone: type the amount to release \(2,460\.00\) to confirm 2460\.00/);
    expect(screen).not.toMatch(/differs from/);
    expect(screen).toMatch(/Fund release approved/);
    expect(screen).toContain(`tpa settlement show ${id}`);

    const settlement = await run(['settlement', 'show', id, '-o', 'json']);
    expect(settlement.code, settlement.stderr).toBe(0);
    expect(settlement.json()).toMatchObject({ encounter_id: id, total_amount: 2460, status: 'INITIATED' });
    const ledger = await run(['ledger', 'show', id, '-o', 'json']);
    expect(ledger.code, ledger.stderr).toBe(0);
    const entries = ledger.json<{ entries: { type: string; reference: string }[] }>().entries;
    expect(entries.filter((e) => e.type === 'FUNDING_APPROVED')).toEqual([expect.objectContaining({ reference: 'AUTH-PTY-7731' })]);
  });

  it.each([
    ['pressing Enter alone (asked again), then Ctrl-C', [ENTER], 'You must provide a value'],
    ['typing y (asked again), then Ctrl-C', ['y', ENTER], 'type 2,460.00, or press Ctrl-C'],
  ])('declining the confirmation by %s exits 2 and releases nothing', async (_how, keys, again) => {
    const id = await adjudicated();
    const r = await tpaInteractive(
      ['fund', 'approve', id],
      [
        { expect: '? Authorization code', send: `AUTH-PTY-0001${ENTER}` },
        { expect: CONFIRM, send: keys },
        { expect: again, send: '\x03' },
      ],
    );
    expectCompleted(r);
    expect(r.exit_code, r.output).toBe(2);
    expect(r.output).toMatch(/nothing was done/);
    expect(r.output).not.toMatch(/Fund release approved/);

    const settlement = await run(['settlement', 'show', id]);
    expect(settlement.code, settlement.stderr).toBe(7);
    const ledger = await run(['ledger', 'show', id, '-o', 'json']);
    expect(ledger.json<{ entries: { type: string }[] }>().entries.map((e) => e.type)).not.toContain('FUNDING_APPROVED');
  });

  it('an encounter that is already funded exits 4 without asking for an amount', async () => {
    const id = await adjudicated();
    const first = await run(['fund', 'approve', id, '--amount', '2460', '--auth-code', 'AUTH-X', '--yes']);
    expect(first.code, first.stderr).toBe(0);

    const r = await tpaInteractive(['fund', 'approve', id], []);
    expectCompleted(r);
    expect(r.exit_code, r.output).toBe(4);
    expect(r.output).toMatch(/already funded \(transfer tr_\w+\); nothing was sent/);
    expect(r.output).toContain(`tpa settlement show ${id}`);
    expect(r.output).not.toContain('type the amount');
    expect(r.output).not.toContain('Authorization code');

    // Still one funding, the first.
    const ledger = await run(['ledger', 'show', id, '-o', 'json']);
    const funded = ledger.json<{ entries: { type: string; reference: string }[] }>().entries.filter((e) => e.type === 'FUNDING_APPROVED');
    expect(funded).toEqual([expect.objectContaining({ reference: 'AUTH-X' })]);
  });

  it('a mistyped amount is refused at the prompt with a reason, and can be corrected there', async () => {
    const id = await adjudicated();
    const r = await tpaInteractive(
      ['fund', 'approve', id],
      [
        { expect: '? Authorization code', send: `AUTH-PTY-0002${ENTER}` },
        { expect: CONFIRM, send: `2460.999${ENTER}` },
        { expect: 'has more than two decimals' },
        // The mistyped text is kept for editing: rub out "999" and finish with "00".
        { send: [BACKSPACE, BACKSPACE, BACKSPACE, `00${ENTER}`] },
        { expect: 'Fund release approved' },
      ],
    );
    expectCompleted(r);
    expect(r.exit_code, r.output).toBe(0);
    expect(oneLine(r.output)).toMatch(/to confirm 2460\.00/);
    expect(r.output).not.toMatch(/differs from/);
    expect(r.output).toMatch(/Fund release approved/);

    const settlement = await run(['settlement', 'show', id, '-o', 'json']);
    expect(settlement.code, settlement.stderr).toBe(0);
    expect(settlement.json()).toMatchObject({ total_amount: 2460, status: 'INITIATED' });
  });

  it('Ctrl-C at a prompt cancels with exit 2 and releases nothing', async () => {
    const id = await adjudicated();
    for (const at of ['? Authorization code', CONFIRM]) {
      const steps: Step[] = [{ expect: '? Authorization code', send: at === '? Authorization code' ? '\x03' : ENTER }];
      if (at !== '? Authorization code') steps.push({ expect: at, send: '\x03' });
      const r = await tpaInteractive(['fund', 'approve', id], steps);
      expectCompleted(r);
      expect(r.exit_code, `${at}\n${r.output}`).toBe(2);
      expect(r.output).not.toMatch(/at .*\.js:\d+/);
    }
    expect((await run(['settlement', 'show', id])).code).toBe(7);
  });

  it('Ctrl-C at the masked API key prompt of auth login cancels with exit 2 and saves nothing', async () => {
    const r = await tpaInteractive(
      ['auth', 'login', '--env', 'sandbox', '--base-url', 'http://127.0.0.1:9'],
      [{ expect: 'API key for sandbox', send: '\x03' }],
    );
    expectCompleted(r);
    expect(r.exit_code, r.output).toBe(2);
    expect(r.output).toMatch(/cancelled: nothing was done/);
    expect(r.output).not.toMatch(/internal error/);
    expect((await run(['config', 'get', 'profiles.sandbox.base_url'])).code).not.toBe(0);
  });

  it('TPA_PROMPT_DISABLED on a terminal: no prompt, exit 2 asking for the values and --yes, nothing sent', async () => {
    const id = await adjudicated();
    const r = await tpaInteractive(['fund', 'approve', id], [], { TPA_PROMPT_DISABLED: '1' });
    expectCompleted(r);
    expect(r.exit_code).toBe(2);
    expect(r.output).not.toContain('type the amount');
    expect(r.output).toMatch(/Nothing was sent/);
    expect(r.output).toMatch(/--yes/);
    const withYes = await tpaInteractive(['fund', 'approve', id, '--amount', '2460', '--auth-code', 'AUTH-NP-1', '--yes', '-o', 'json'], [], {
      TPA_PROMPT_DISABLED: '1',
    });
    expectCompleted(withYes);
    expect(withYes.exit_code).toBe(0);
    expect(withYes.output).toMatch(/"status": "APPROVED"/);
  });
});

describe('ratesheet finalize on a terminal', () => {
  it('names the codes that stop being rated before asking; Enter (No) writes nothing', async () => {
    expect((await run(['ratesheet', 'init', 'BLD-1002'])).code).toBe(0);
    expect((await run(['ratesheet', 'add', 'BLD-1002', '--ssp', 'HD-0401', '--rate-type', 'CASE_RATE', '--rate', '2100'])).code).toBe(0);
    const r = await tpaInteractive(['ratesheet', 'finalize', 'BLD-1002'], [{ expect: 'Finalize the rate schedule of BLD-1002', send: ENTER }]);
    expectCompleted(r);
    expect(r.output).toMatch(/codes are then no longer rated on this contract, and their claims are not covered: [^\n]*45378/);
    expect(r.output.indexOf('no longer rated')).toBeLessThan(r.output.indexOf('Finalize the rate schedule'));
    expect(r.exit_code).not.toBe(0);
    const shown = (await run(['ratesheet', 'show', 'BLD-1002', '-o', 'json'])).json<{ rate_schedule: { status: string } }>();
    expect(shown.rate_schedule.status).toBe('DRAFT');
  });
});

describe('batches and payment runs on a terminal', () => {
  it('claim submit of a folder draws its progress on stderr and ends with a summary table', async () => {
    const dir = join(home.dir, 'claims');
    mkdirSync(dir);
    for (const [i, patient] of ['MBR-1001', 'MBR-1002', 'MBR-1003'].entries()) {
      const t = await run(['claim', 'template', '--patient', patient]);
      writeFileSync(join(dir, `c${i}.json`), t.stdout);
    }
    const r = await tpaInteractive(['claim', 'submit', 'claims', '--wait'], [{ expect: 'Outcome' }]);
    expectCompleted(r);
    expect(r.exit_code, r.output).toBe(0);
    expect(r.output).toMatch(/\[#{20}\]\s+3 of 3 claims/);
    expect(r.output).toMatch(/APPROVED\s*│\s*3/);
    expect(r.output).toMatch(/Total\s*│\s*3/);
    expect(r.output).toMatch(/This run sent 3/);
    expect(r.output).toMatch(/Benefit/);
  });

  it('fund run shows the review, asks for the prefix, refuses a mistyped total at the prompt and approves once the total shown is typed', async () => {
    const id = await adjudicated();
    const r = await tpaInteractive(
      ['fund', 'run'],
      [
        { expect: 'Authorization code prefix', send: `AUTH-20261124-PTY${ENTER}` },
        { expect: 'to confirm', send: `2460.01${ENTER}` },
        { expect: 'differs from the total of 2,460.00', send: [...Array(7).fill(BACKSPACE), `2,460.00${ENTER}`] },
        { expect: 'approved of' },
      ],
    );
    expectCompleted(r);
    expect(r.exit_code, r.output).toBe(0);
    expect(r.output).toMatch(/Payment run: 1 encounter, 2,460\.00 in all/);
    expect(r.output.indexOf('Payment run: 1 encounter')).toBeLessThan(r.output.indexOf('Authorization code prefix'));
    expect(oneLine(r.output)).toContain('type the total to release (2,460.00) to confirm');
    expect(r.output).toMatch(/Fees\W+Net/);
    expect(r.output).toMatch(/AUTH-20261124-PTY-0001/);
    expect(r.output).toMatch(/Payment run AUTH-20261124-PTY: 2,460\.00 approved of 2,460\.00/);
    const settlement = await run(['settlement', 'show', id, '-o', 'json']);
    expect(settlement.code).toBe(0);
  });
});

describe('tables that fit the terminal', () => {
  /** The lines of a screen as the terminal shows them: escape sequences and carriage returns gone. */
  const screenLines = (output: string) =>
    output
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's escape sequences are what this removes
      .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
      .split(/\r?\n/)
      // A carriage return starts the line again: what follows the last one is what shows.
      .map((l) => l.slice(l.lastIndexOf('\r') + 1));

  it('ledger list, ledger show, settlement show, ratesheet preview and the fund review never draw a line wider than 80 or 120 columns, and cut no identifier or amount', async () => {
    const id = await adjudicated();
    // A second encounter (another member), funded, so that settlement show has payouts to list.
    const second = await adjudicatedEncounter(run, home.dir, { template: ['--type', 'institutional', '--patient', 'MBR-1001'] });
    const funded = second.id;
    expect((await run(['fund', 'approve', funded, '--amount', second.amount, '--auth-code', 'AUTH-20261124-FIT-0001', '--yes'])).code).toBe(0);
    expect((await run(['ratesheet', 'init', 'BLD-1001'])).code).toBe(0);
    expect((await run(['ratesheet', 'add', 'BLD-1001', '--ssp', 'HD-0401', '--rate-type', 'CASE_RATE', '--rate', '2100'])).code).toBe(0);
    expect(
      (
        await run([
          'ratesheet',
          'add',
          'BLD-1001',
          '--ssp',
          'ey-0501',
          '--rate-type',
          'PERCENT_MEDICARE',
          '--rate',
          '1.35',
          '--bundle-eligible',
          '--bundle-type',
          'CONVENED',
        ])
      ).code,
    ).toBe(0);
    const screens: { args: string[]; steps?: Step[]; whole: RegExp[] }[] = [
      { args: ['ledger', 'list'], whole: [new RegExp(id), /2,460\.00/] },
      // At 120 columns the list leaves Charges and Allowed out (docs/design.md "Output"); the benefit stays.
      { args: ['ledger', 'list', '--all'], whole: [new RegExp(funded), /2,060\.00/] },
      { args: ['ledger', 'show', funded], whole: [/AUTH-20261124-FIT-0001/, /tr_[0-9a-f]{20}/, /3,100\.00/] },
      { args: ['settlement', 'show', funded], whole: [/stl_[0-9a-f]{20}/, /FACILITY/] },
      { args: ['ratesheet', 'preview', 'BLD-1001'], whole: [/HD-0401/, /2,100\.00/] },
      { args: ['fund', 'approve', id], steps: [{ expect: '? Authorization code', send: '\x03' }], whole: [/Fee\W+Net/, /2,460\.00/, /1234567893/] },
      { args: ['settlement', 'report', '--from', '2000-01-01', '--to', '2100-12-31'], whole: [/Settled per day/, /Exceptions to act on/, /Net to providers/] },
    ];
    for (const cols of [80, 120]) {
      for (const screen of screens) {
        // A prompt needs the pty; the other screens are drawn in-process for a terminal that wide,
        // stdout and stderr shown together as on the screen.
        let output: string;
        if (screen.steps) {
          const r = await tpaInteractive(screen.args, screen.steps, {}, cols);
          expectCompleted(r);
          output = r.output;
        } else {
          const r = await runTpa(screen.args, { home: home.dir, tty: true, columns: cols });
          expect(r.code, `${screen.args.join(' ')}: ${r.stderr}`).toBe(0);
          output = r.stderr + r.stdout;
        }
        const lines = screenLines(output);
        const widest = lines.reduce((w, l) => Math.max(w, [...l].length), 0);
        expect(widest, `${screen.args.join(' ')} at ${cols} columns:\n${lines.join('\n')}`).toBeLessThanOrEqual(cols);
        for (const re of screen.whole) expect(lines.join('\n'), `${screen.args.join(' ')} at ${cols}: ${re}`).toMatch(re);
      }
    }
  });

  it('piped output never changes with the width', async () => {
    const id = await adjudicated();
    // Real processes: COLUMNS reaches a process, not an in-process run.
    const narrow = await tpa(['ledger', 'show', id, '-o', 'csv'], { home: home.dir, env: { COLUMNS: '40' } });
    const wide = await tpa(['ledger', 'show', id, '-o', 'csv'], { home: home.dir, env: { COLUMNS: '200' } });
    expect(narrow.stdout).toBe(wide.stdout);
    const table = await runTpa(['ledger', 'list', '-o', 'table'], { home: home.dir });
    expect(table.stdout).toMatch(/│ Encounter\s+│ Id\s+│/);
  });
});
