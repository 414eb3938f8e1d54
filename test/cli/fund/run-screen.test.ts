// `tpa fund run` as the approver sees it, under a real pseudo-terminal at 80×30 and 120×40: the
// summary (count, total, each provider's payouts, fees and nets) stands on the screen above the
// total to type, however many encounters the run holds; the review comes before any question, the
// authorization prefix is offered (never one already given), and nothing to fund asks nothing.
// Then, in-process: every command tpa suggests keeps the user's selection and profile, quoted for a
// shell, and a run ends with its next step.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatCentsGrouped } from '../../../src/domain/money.js';
import { runTpa } from '../../helpers/cli.js';
import { distinctClaim } from '../../helpers/claims.js';
import { tempDir } from '../../helpers/engine.js';
import { login, serve } from '../../helpers/server.js';
import { CTRL_C, ENTER, type PtyResult, ptyRun, screenAtStep } from '../../helpers/pty.js';
import { cents, ndjson } from '../../helpers/values.js';

const CLOCK = '2026-06-30T12:00:00Z';
const env = { TPA_CLOCK: CLOCK };
/** The smallest terminal an approver works in, and a roomy one. */
const SIZES = [
  { cols: 80, rows: 24 },
  { cols: 120, rows: 40 },
] as const;

let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: home, remove: cleanup } = tempDir());
});
afterEach(() => cleanup());

type Row = Record<string, any>;
interface Review {
  count: number;
  total: string;
  providers: { npi: string; name: string; amount: string; fees: string; net: string }[];
  encounters: Row[];
}

/** Claims `from` … `to - 1` of the distinct batch (Dr. Morgan's, from 2026-01-01 on), and `institutional` four-provider encounters, adjudicated. */
async function ledgerOf(from: number, to: number, institutional = 0): Promise<void> {
  const lines = [];
  for (let i = from; i < to; i++) lines.push(JSON.stringify(distinctClaim(i)));
  for (let i = 0; i < institutional; i++) {
    const t = await runTpa(['claim', 'template', '--type', 'institutional', '--patient', `MBR-100${i + 1}`], { home, env });
    expect(t.code, t.stderr).toBe(0);
    lines.push(JSON.stringify(JSON.parse(t.stdout)));
  }
  const file = join(home, `claims-${from}-${to}.ndjson`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  const r = await runTpa(['claim', 'submit', file, '-o', 'ndjson'], { home, env });
  expect(r.code, r.stderr).toBe(0);
}

async function review(args: string[] = []): Promise<Review> {
  const r = await runTpa(['fund', 'run', '--dry-run', ...args, '-o', 'json'], { home, env });
  expect(r.code, r.stderr).toBe(0);
  return r.json();
}

function completed(r: PtyResult): void {
  expect(r.error, `${r.error}\n--- output ---\n${r.output}`).toBeNull();
  expect(r.timed_out).toBe(false);
}

const money = (amount: unknown) => formatCentsGrouped(cents(amount)).replace(/[.]/g, '\\.');

/** Text as one line, as a shell reads it: each command is on a line of its own, continued with " \\" at 80 columns. */
const oneLine = (text: string) => text.replace(/ \\\n/g, ' ').replace(/\s+/g, ' ');

describe('fund run on a terminal: the summary above the total to type', () => {
  it.each(SIZES)(
    'at $cols×$rows, with 45 encounters: where the money moves first, then the total, each provider line (NPIs whole) and the prompt are on the screen',
    async ({ cols, rows }) => {
      await ledgerOf(0, 52, 1);
      const filters = ['--from', '2026-01-01', '--to', '2026-12-31'];
      const r0 = await review(filters);
      expect(r0.count).toBeGreaterThanOrEqual(40);
      expect(r0.providers.length).toBeGreaterThan(1);
      const r = await ptyRun(
        ['fund', 'run', ...filters],
        [
          { expect: 'Authorization code prefix', send: ENTER },
          { expect: 'type the total to release', send: CTRL_C },
        ],
        { home, env, cols, rows },
      );
      completed(r);
      expect(r.exit_code, r.output).toBe(2);
      const lines = await screenAtStep(r, 1, cols, rows);
      const screen = lines.join('\n');
      const why = `the screen at ${cols}×${rows}:\n${screen}`;
      // The screen begins with where the money moves: a note (the keychain's, said once) comes after it.
      expect(lines[0], why).toMatch(/^Profile local · local engine \(no real money\) · /);
      for (const line of lines) expect(line.length, why).toBeLessThanOrEqual(cols);
      expect(screen, why).toContain(`Payment run: ${r0.count} encounters, ${formatCentsGrouped(cents(r0.total))} in all`);
      for (const p of r0.providers) {
        expect(
          lines.some((l) => l.includes(p.npi)),
          why,
        ).toBe(true);
        expect(screen, why).toMatch(new RegExp(`${money(p.amount)}\\W+${money(p.fees)}\\W+${money(p.net)}`));
      }
      expect(screen, why).toContain(`type the total to release (${formatCentsGrouped(cents(r0.total))})`);
      // No encounter of the list: it is one command away, with the same selection.
      expect(screen, why).not.toMatch(/enc_[0-9a-f]{20}/);
      expect(oneLine(r.output)).toContain(`${r0.count} encounters; the list of them: tpa fund run --dry-run --from 2026-01-01 --to 2026-12-31`);
      // Nothing was sent.
      expect((await review()).count).toBe(r0.count);
    },
  );
});

describe('fund run on a sandbox profile over tpa local serve', () => {
  it.each(SIZES)(
    'at $cols×$rows: the review and the resume confirmation begin with the profile, sandbox and the URL, and each question starts [sandbox]',
    async ({ cols, rows }) => {
      await ledgerOf(0, 3);
      const { total } = await review();
      // The first approval is answered 503: the run stops with approvals left, to be resumed.
      const server = await serve(home, [], { TPA_FAULT: 'error-503*1:funding/approve' });
      try {
        await login(home, server.url);
        const where = `Profile sandbox · sandbox · ${server.url}`;
        const r = await ptyRun(
          ['fund', 'run', '-p', 'sandbox'],
          [
            { expect: 'Authorization code prefix', send: ENTER },
            { expect: 'type the total to release', send: `${total}${ENTER}` },
            { expect: 'continue with' },
          ],
          { home, cols, rows },
        );
        completed(r);
        const atTotal = await screenAtStep(r, 1, cols, rows);
        const why = atTotal.join('\n');
        // The first line of the screen, always; notes (the keychain's) come after it.
        expect(atTotal[0], why).toBe(where);
        expect(why).toMatch(/Payment run: \d+ encounters/);
        expect(oneLine(atTotal.join('\n')), why).toContain('[sandbox] Release to');
        const journal = /--journal (\S+)/.exec(oneLine(r.output))![1]!;
        const resumed = await ptyRun(['fund', 'run', '--journal', journal, '-p', 'sandbox'], [{ expect: 'to confirm', send: CTRL_C }], {
          home,
          cols,
          rows,
        });
        completed(resumed);
        expect(resumed.exit_code, resumed.output).toBe(2);
        const atResume = await screenAtStep(resumed, 0, cols, rows);
        const prompt = atResume.findIndex((l) => l.startsWith('? [sandbox] Resume'));
        expect(prompt, atResume.join('\n')).toBeGreaterThan(0);
        // Where the money moves first, then the note saying what is resumed, then the question.
        expect(atResume[0], atResume.join('\n')).toBe(where);
        expect(atResume.slice(1, prompt).join(' '), atResume.join('\n')).toContain('resuming the payment run');
      } finally {
        await server.stop();
      }
    },
  );
});

describe('fund run on a terminal: the keychain note', () => {
  it('without a keychain (no D-Bus here), the fallback is said once, in one short line, under the first line and above the review: never between the confirmation and the approvals', async () => {
    await ledgerOf(0, 3);
    const { total } = await review();
    const r = await ptyRun(
      ['fund', 'run'],
      [{ expect: 'Authorization code prefix', send: ENTER }, { expect: 'type the total to release', send: `${total}${ENTER}` }, { expect: 'approved of' }],
      { home, env: { ...env, TPA_KEYRING: 'auto', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' }, cols: 120, rows: 40 },
    );
    completed(r);
    expect(r.exit_code, r.output).toBe(0);
    const notes = r.output.match(/no keychain here[^\n]*/g) ?? [];
    expect(notes, r.output).toEqual([`no keychain here: credentials are kept in ${join(home, 'credentials.json')} (mode 0600)`]);
    expect(r.output).not.toMatch(/Platform failure|DBus|D-Bus/);
    expect(r.output.indexOf('no keychain here')).toBeLessThan(r.output.indexOf('Payment run:'));
    // The first line is first: the note comes after it.
    expect(r.output.indexOf('no keychain here')).toBeGreaterThan(r.output.indexOf('Profile local'));
  });
});

describe('fund run on a terminal: show first, then ask', () => {
  it.each(SIZES)('at $cols×$rows: nothing to fund is said once, exit 0, and nothing is asked', async ({ cols, rows }) => {
    const r = await ptyRun(['fund', 'run'], [{ expect: 'othing to fund' }], { home, env, cols, rows });
    completed(r);
    expect(r.exit_code, r.output).toBe(0);
    expect(r.output.match(/nothing to fund/gi), r.output).toHaveLength(1);
    expect(r.output).not.toContain('Authorization code prefix');
    expect(r.output).not.toContain('type the total');
  });

  it.each(SIZES)(
    'at $cols×$rows: the review comes before the prefix, which is offered; a prefix already given is refused and the next free one offered',
    async ({ cols, rows }) => {
      await ledgerOf(0, 4);
      const first = await review();
      expect(first.count).toBeGreaterThan(1);
      // The recommended format, dated by the engine's clock, the organisation the payer's.
      const offered = 'AUTH-20260630-ACME';
      const r = await ptyRun(
        ['fund', 'run'],
        [
          { expect: 'Authorization code prefix', send: ENTER },
          { expect: 'type the total to release', send: `${first.total}${ENTER}` },
          { expect: 'approved of' },
        ],
        { home, env, cols, rows },
      );
      completed(r);
      expect(r.exit_code, r.output).toBe(0);
      const atPrefix = (await screenAtStep(r, 0, cols, rows)).join('\n');
      expect(atPrefix).toContain(`Payment run: ${first.count} encounters, ${formatCentsGrouped(cents(first.total))} in all`);
      expect(atPrefix).toMatch(/Fees\W+Net/);
      expect(atPrefix).toContain(`(${offered})`);
      expect(atPrefix.replace(/\s+/g, ' ')).toContain('The authorization codes are your reference for the audit trail');
      for (let i = 1; i <= first.count; i++) expect(r.output).toContain(`${offered}-000${i}`);

      // Two more encounters: the prefix used is not offered again, and typed, it is refused.
      await ledgerOf(4, 8);
      const second = await review();
      expect(second.count).toBeGreaterThan(1);
      const again = await ptyRun(
        ['fund', 'run'],
        [
          { expect: 'Authorization code prefix', send: `${offered}${ENTER}` },
          { expect: 'taken: give another prefix, e.g.', send: CTRL_C },
        ],
        { home, env, cols, rows },
      );
      completed(again);
      expect(again.exit_code, again.output).toBe(2);
      const screen = (await screenAtStep(again, 0, cols, rows)).join('\n');
      expect(screen).toContain(`(${offered}2)`);
      expect(screen).toContain(`Payment run: ${second.count} encounters`);
      expect(again.output).toContain(`e.g. ${offered}2`);
      expect((await review()).count).toBe(second.count);
    },
  );
});

describe('suggested commands keep the selection, and a run ends with its next step', () => {
  it('fund run: the listing, the --expect-total hint, the journal hint and Next keep --from/--to and -p, with a path quoted for the shell', async () => {
    await ledgerOf(0, 30);
    const sel = ['--from', '2026-01-01', '--to', '2026-01-02'];
    const { count, total } = await review(sel);
    expect(count).toBeGreaterThan(1);
    const wrong = await runTpa(['fund', 'run', ...sel, '-p', 'local', '--auth-code-prefix', 'AUTH-S', '--expect-total', '0.01', '--yes', '-o', 'ndjson'], {
      home,
      env,
    });
    expect(wrong.code, wrong.stderr).toBe(4);
    expect(oneLine(wrong.stderr)).toContain(`${count} encounters; the list of them: tpa fund run --dry-run --from 2026-01-01 --to 2026-01-02 -p local`);
    expect(wrong.stderr).toContain('review it with tpa fund run --dry-run --from 2026-01-01 --to 2026-01-02 -p local, then give --expect-total');

    mkdirSync(join(home, "Bob's runs"));
    const journal = join(home, "Bob's runs", 'run 1.ndjson');
    const r = await runTpa(
      ['fund', 'run', ...sel, '-p', 'local', '--auth-code-prefix', 'AUTH-S', '--expect-total', String(total), '--journal', journal, '--yes', '-o', 'ndjson'],
      { home, env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(ndjson(r.stdout)).toHaveLength(count);
    // A prefix whose codes are not of the recommended shape is warned about, and kept.
    expect(oneLine(r.stderr)).toContain(
      'warning: AUTH-S-0001 is not in the recommended format AUTH-<date>-<organization>-<sequence> (e.g. AUTH-20260630-ACME-0001); the codes are sent as given',
    );

    const quoted = `'${journal.replace(/'/g, `'\\''`)}'`;
    expect(r.stderr).toContain(`if interrupted, run: tpa fund run --journal ${quoted} -p local)`);
    expect(r.stderr).toMatch(/Next\s+tpa settlement report --from 2026-01-01 --to 2026-01-02 -p local\n/);
  });

  it('fund run without filters: Next is the report over the service dates of its encounters; a run of one encounter, its settlement', async () => {
    await ledgerOf(0, 30);
    const one = await review(['--limit', '1']);
    const single = await runTpa(
      ['fund', 'run', '--limit', '1', '--auth-code-prefix', 'AUTH-ONE', '--expect-total', String(one.total), '--yes', '-o', 'ndjson'],
      {
        home,
        env,
      },
    );
    expect(single.code, single.stderr).toBe(0);
    expect(single.stderr).toMatch(new RegExp(`Next\\s+tpa settlement show ${one.encounters[0]!.encounter_id}\\n`));

    const rest = await review();
    const dates = rest.encounters.map((e) => e.service_date as string).sort();
    const r = await runTpa(['fund', 'run', '--auth-code-prefix', 'AUTH-ALL', '--expect-total', String(rest.total), '--yes', '-o', 'ndjson'], { home, env });
    expect(r.code, r.stderr).toBe(0);
    expect(dates[0]).not.toBe(dates.at(-1));
    expect(r.stderr).toMatch(new RegExp(`Next\\s+tpa settlement report --from ${dates[0]} --to ${dates.at(-1)}\\n`));
  });

  it('ledger list: the page hint names the next page and all of them with the same filters, page size and profile', async () => {
    await ledgerOf(0, 8);
    const r = await runTpa(['ledger', 'list', '--status', 'ADJUDICATED', '--from', '2026-01-01', '--limit', '3', '-p', 'local'], { home, env, tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(oneLine(r.stderr)).toContain('next page: tpa ledger list --from 2026-01-01 --status ADJUDICATED --limit 3 --offset 3 -p local');
    expect(oneLine(r.stderr)).toContain('all of them: tpa ledger list --from 2026-01-01 --status ADJUDICATED --limit 3 --all -p local');
  });

  it('ratesheet catalog: the page hint keeps --search and the page size', async () => {
    const r = await runTpa(['ratesheet', 'catalog', '--page-size', '2', '-p', 'local'], { home, env, tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(oneLine(r.stderr)).toContain('next page: tpa ratesheet catalog --page-size 2 --page 2 -p local');
    expect(oneLine(r.stderr)).toContain('all of them: tpa ratesheet catalog --page-size 2 --all -p local');
  });

  it('claim submit: Next keeps the profile', async () => {
    const t = await runTpa(['claim', 'template'], { home, env });
    writeFileSync(join(home, 'claim.json'), t.stdout);
    const r = await runTpa(['claim', 'submit', 'claim.json', '-p', 'local'], { home, env, tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Next\s+tpa claim poll sub_\w+ --wait -p local/);
  });

  it('fund approve: Next keeps the profile', async () => {
    await ledgerOf(0, 4);
    const list = await runTpa(['ledger', 'list', '--status', 'ADJUDICATED', '-o', 'json'], { home, env });
    const entry = list
      .json<{ results: { encounter_id: string; financial_summary: { benefit_amount: number } }[] }>()
      .results.find((e) => e.financial_summary.benefit_amount > 0);
    const r = await runTpa(
      [
        'fund',
        'approve',
        entry!.encounter_id,
        '--amount',
        String(entry!.financial_summary.benefit_amount),
        '--auth-code',
        'AUTH-NEXT-0001',
        '--yes',
        '-p',
        'local',
      ],
      { home, env, tty: true },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`Next\\s+tpa settlement show ${entry!.encounter_id} -p local`));
  });

  it('claim submit --wait that times out: the poll to try keeps --timeout and the profile', async () => {
    const t = await runTpa(['claim', 'template'], { home, env });
    writeFileSync(join(home, 'claim.json'), t.stdout);
    const r = await runTpa(['claim', 'submit', 'claim.json', '--wait', '--timeout', '1s', '-p', 'local'], {
      home,
      env: { ...env, TPA_ADJUDICATION_DELAY: '1h' },
    });
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(/try: tpa claim poll sub_\w+ --wait --timeout 1s -p local/);
  });
});
