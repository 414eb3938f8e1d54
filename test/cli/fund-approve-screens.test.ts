// The approver's prompts of `tpa fund approve` under a real terminal, at 80×30 and 120×40: an
// amount other than the benefit never reaches the confirmation, the amount prompt
// takes the format tpa prints, and the authorization code offered is never one already used.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTpaHome } from '../helpers/cli.js';
import { adjudicatedEncounter } from '../helpers/encounters.js';
import { BACKSPACE, ENTER, type PtyResult, ptyRun, SIZES, screenAtStep, type Step } from '../helpers/pty.js';

const home = useTpaHome(beforeEach, afterEach);
const run = (args: string[]) => home.run(args);

function expectCompleted(r: PtyResult): void {
  expect(r.error, `${r.error}\n--- screen ---\n${r.output}`).toBeNull();
  expect(r.timed_out).toBe(false);
}

/** Keystrokes that rub out `text` typed at a prompt (inquirer keeps a refused answer for editing). */
const rubOut = (text: string) => Array(text.length).fill(BACKSPACE) as string[];

/** An adjudicated institutional encounter (benefit 2,460.00, four providers). */
async function adjudicated(): Promise<string> {
  const e = await adjudicatedEncounter(run, home.dir);
  expect(e.response).toMatchObject({ status: 'ADJUDICATED', adjudication: { benefit_amount: 2460 } });
  return e.id;
}

/** An adjudicated institutional encounter of another member: its id and its benefit as the confirmation prints it. */
async function another(patient: string): Promise<{ id: string; release: string }> {
  const e = await adjudicatedEncounter(run, home.dir, { template: ['--type', 'institutional', '--patient', patient] });
  expect(e.response).toMatchObject({ status: 'ADJUDICATED' });
  return { id: e.id, release: `Release $${Number(e.amount).toLocaleString('en-US', { minimumFractionDigits: 2 })} to` };
}

const fundedCodes = async (id: string) =>
  (await run(['ledger', 'show', id, '-o', 'json']))
    .json<{ entries: { type: string; reference: string }[] }>()
    .entries.filter((e) => e.type === 'FUNDING_APPROVED')
    .map((e) => e.reference);

describe.each(SIZES)('fund approve at $cols×$rows', ({ cols, rows }) => {
  it('an amount other than the benefit is asked again at the prompt, saying why; the printed format "$2,460.00" is taken', async () => {
    const id = await adjudicated();
    const steps: Step[] = [
      { expect: 'Amount to release (USD)', send: `3200${ENTER}` },
      { expect: 'differs from the benefit of $2,460.00' },
      { send: [...rubOut('3200'), `2,46.00${ENTER}`] },
      { expect: 'groups of three digits' },
      { send: [...rubOut('2,46.00'), `2460.001${ENTER}`] },
      { expect: 'more than two decimals' },
      { send: [...rubOut('2460.001'), `$2,460.00${ENTER}`] },
      { expect: 'Authorization code', send: `AUTH-PTY-AMOUNT${ENTER}` },
      { expect: 'Release $2,460.00 to 4 providers?', send: ['y', ENTER] },
      { expect: 'Fund release approved' },
    ];
    const r = await ptyRun(['fund', 'approve', id], steps, { home: home.dir, cols, rows });
    expectCompleted(r);
    expect(r.exit_code, r.output).toBe(0);
    // While 3200 was refused: the reason on screen, under the review, and no confirmation yet.
    const refused = (await screenAtStep(r, 1, cols, rows)).join('\n');
    expect(refused).toMatch(/differs from the benefit of \$2,460\.00/);
    expect(refused).toMatch(/Amount to release \(USD\)/);
    expect(refused).not.toMatch(/cannot be undone|Authorization code/);
    const grouping = (await screenAtStep(r, 3, cols, rows)).join('\n');
    expect(grouping).toMatch(/"2,46\.00".*groups of three digits/);
    // 3200 never reached the confirmation.
    expect(r.output).not.toMatch(/Release \$3,200\.00/);
    const settlement = await run(['settlement', 'show', id, '-o', 'json']);
    expect(settlement.json()).toMatchObject({ total_amount: 2460, status: 'INITIATED' });
  });

  it('--amount other than the benefit on the command line is refused before any question (exit 4), nothing sent', async () => {
    const id = await adjudicated();
    const r = await ptyRun(['fund', 'approve', id, '--amount', '3,200.00'], [], { home: home.dir, cols, rows });
    expectCompleted(r);
    expect(r.exit_code, r.output).toBe(4);
    // The message is wrapped at spaces to the terminal's width.
    const said = r.output.replace(/\s+/g, ' ');
    expect(said).toMatch(/--amount 3,200\.00 differs from the benefit of \$2,460\.00/);
    expect(said).toMatch(/nothing was sent/);
    expect(r.output).not.toMatch(/Authorization code|cannot be undone/);
    expect((await run(['settlement', 'show', id])).code).toBe(7);
  });

  it('Enter at the code prompt offers the next free code: -0002 for a second encounter, a new one after a failed transfer', async () => {
    const first = await adjudicated();
    const { id: second, release } = await another('MBR-1002');
    const approveWithEnter = (id: string) =>
      ptyRun(
        ['fund', 'approve', id],
        [
          { expect: 'Amount to release (USD)', send: ENTER },
          { expect: 'Authorization code', send: ENTER },
          { expect: id === first ? 'Release $2,460.00 to 4 providers?' : release, send: ['y', ENTER] },
          { expect: 'Fund release approved' },
        ],
        { home: home.dir, cols, rows },
      );
    const a = await approveWithEnter(first);
    expectCompleted(a);
    expect(a.exit_code, a.output).toBe(0);
    const [codeA] = await fundedCodes(first);
    expect(codeA).toMatch(/^AUTH-\d{8}-ACME-0001$/);
    // The confirmation names the code that goes into the audit trail.
    expect((await screenAtStep(a, 2, cols, rows)).join(' ').replace(/\s+/g, ' ')).toContain(`Code ${codeA}. This cannot be undone`);

    const b = await approveWithEnter(second);
    expectCompleted(b);
    expect(b.exit_code, b.output).toBe(0);
    const offered = (await screenAtStep(b, 1, cols, rows)).join('\n');
    expect(offered).toContain(`(${codeA!.replace(/-0001$/, '-0002')})`);
    expect(await fundedCodes(second)).toEqual([codeA!.replace(/-0001$/, '-0002')]);

    // The second transfer fails: its code is used, and typed again it is asked again; Enter takes a
    // new one, which the service takes.
    expect((await run(['local', 'simulate', 'settlement-failure', second])).code).toBe(0);
    const failedCode = codeA!.replace(/-0001$/, '-0002');
    const again = await ptyRun(
      ['fund', 'approve', second],
      [
        { expect: 'Amount to release (USD)', send: ENTER },
        { expect: 'Authorization code', send: `${failedCode}${ENTER}` },
        { expect: 'is used already' },
        { send: [...rubOut(failedCode), ENTER] },
        { expect: release, send: ['y', ENTER] },
        { expect: 'Fund release approved' },
      ],
      { home: home.dir, cols, rows },
    );
    expectCompleted(again);
    expect(again.exit_code, again.output).toBe(0);
    expect((await screenAtStep(again, 1, cols, rows)).join('\n')).toContain(`(${codeA!.replace(/-0001$/, '-0003')})`);
    expect(await fundedCodes(second)).toEqual([codeA!.replace(/-0001$/, '-0002'), codeA!.replace(/-0001$/, '-0003')]);
  });

  it('--auth-code already used is refused before any question, as a typed one is; nothing sent', async () => {
    const first = await adjudicated();
    const { id: second } = await another('MBR-1002');
    const a = await run(['fund', 'approve', first, '--amount', '2460', '--auth-code', 'AUTH-FLAG-0001', '--yes']);
    expect(a.code, a.stderr).toBe(0);
    const r = await ptyRun(['fund', 'approve', second, '--auth-code', 'AUTH-FLAG-0001'], [], { home: home.dir, cols, rows });
    expectCompleted(r);
    expect(r.exit_code, r.output).toBe(4);
    const said = r.output.replace(/\s+/g, ' ');
    expect(said).toMatch(/--auth-code AUTH-FLAG-0001 is used already \(by the approval of enc_\w+/);
    expect(said).toMatch(/Nothing was sent/);
    expect(r.output).not.toMatch(/Amount to release|cannot be undone/);
    // Another case and spaces are the same code.
    const variant = await ptyRun(['fund', 'approve', second, '--auth-code', ' auth-flag-0001 '], [], { home: home.dir, cols, rows });
    expectCompleted(variant);
    expect(variant.exit_code, variant.output).toBe(4);
    expect(variant.output).not.toMatch(/Amount to release|cannot be undone/);
    expect(await fundedCodes(second)).toEqual([]);
  });
});
