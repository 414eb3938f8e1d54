// The approver's screens of `tpa fund approve` under a real terminal, at 80×24 and 120×40: the first
// line names where the money moves (profile, environment, host; PRODUCTION so it cannot be
// mistaken), the review fits with the benefit and the prompt on screen, no NPI, amount or id is
// broken across lines, the one confirmation is the amount typed (never pre-filled: Enter alone is no
// yes) naming the encounter and the patient, and the authorization code offered is the approver's
// reference in the recommended format, dated by the engine's clock.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runTpa, useTpaHome } from '../../helpers/cli.js';
import { mtlsLoginArgs, TestCa } from '../../helpers/certs.js';
import { tempDir } from '../../helpers/engine.js';
import { adjudicatedEncounter } from '../../helpers/encounters.js';
import { BACKSPACE, CTRL_C, ENTER, type PtyResult, ptyRun, screenAtStep, type Step } from '../../helpers/pty.js';
import { login, serve, type Served } from '../../helpers/server.js';

/** The sizes of these screens: the smallest terminal an approver works in, and a roomy one. */
const SIZES = [
  { cols: 80, rows: 24 },
  { cols: 120, rows: 40 },
] as const;

/** The engine's clock, months before the machine's: the code offered is dated by it. */
const CLOCK = '2026-06-30T12:00:00Z';
const TEMPLATE = ['--type', 'institutional', '--service-date', '2026-06-29'];
const NPIS = ['1234567893', '1045782368', '1196382455', '1329475804'];

function expectCompleted(r: PtyResult): void {
  expect(r.error, `${r.error}\n--- screen ---\n${r.output}`).toBeNull();
  expect(r.timed_out).toBe(false);
}

/** Keystrokes that rub out `text` typed at a prompt (inquirer keeps a refused answer for editing). */
const rubOut = (text: string) => Array(text.length).fill(BACKSPACE) as string[];
const oneLine = (lines: string[]) => lines.join(' ').replace(/\s+/g, ' ');

/**
 * What every approval screen must show when its confirmation is asked: the line naming where the
 * money moves first, the benefit and the question naming the encounter and the patient on screen,
 * every line within the width, and each id, NPI and amount whole on one line.
 */
function expectApprovalScreen(screen: string[], cols: number, firstLine: RegExp, tokens: string[], question: string): void {
  const why = `the screen at ${cols} columns:\n${screen.join('\n')}`;
  expect(screen[0], why).toMatch(firstLine);
  expect(screen.join('\n'), why).toMatch(/Benefit amount\s+2,460\.00/);
  expect(oneLine(screen), why).toContain(`${question} to 4 providers, which cannot be undone: type the amount to release (2,460.00) to confirm`);
  for (const line of screen) expect(line.length, why).toBeLessThanOrEqual(cols);
  for (const token of tokens)
    expect(
      screen.some((l) => l.includes(token)),
      `${token} whole on a line: ${why}`,
    ).toBe(true);
}

/**
 * The screen's first line, which names where the money moves: a note (the keychain's, said once per
 * config dir, the first time a profile's key is read) comes after it, above the review's heading.
 */
function reviewStart(screen: string[]): string | undefined {
  const heading = screen.findIndex((l) => l.startsWith('Fund release for encounter'));
  expect(heading, screen.join('\n')).toBeGreaterThan(0);
  return screen[0];
}

const fundedCodes = async (home: string, id: string) =>
  (await runTpa(['ledger', 'show', id, '-o', 'json'], { home }))
    .json<{ entries: { type: string; reference: string }[] }>()
    .entries.filter((e) => e.type === 'FUNDING_APPROVED')
    .map((e) => e.reference);

describe.each(SIZES)('fund approve on the local profile at $cols×$rows', ({ cols, rows }) => {
  const home = useTpaHome(beforeEach, afterEach);
  const run = (args: string[]) => home.run(args);
  beforeEach(async () => {
    expect((await run(['local', 'clock', 'set', CLOCK])).code).toBe(0);
  });
  const adjudicated = async (patient = 'MBR-1003') => {
    const e = await adjudicatedEncounter(run, home.dir, { template: [...TEMPLATE, '--patient', patient] });
    expect(e.response).toMatchObject({ status: 'ADJUDICATED' });
    return e;
  };
  const number = async (id: string) =>
    (await run(['ledger', 'show', id, '-o', 'json'])).json<{ encounter: { encounter_number: string } }>().encounter.encounter_number;

  it('the review names the profile, the local engine and its database first, fits with the benefit and the prompt naming encounter and patient; Enter alone is no yes; the code offered is dated by the engine', async () => {
    const e = await adjudicated();
    const steps: Step[] = [
      { expect: '? Authorization code', send: ENTER },
      { expect: 'to confirm', send: ENTER },
      { expect: 'You must provide a value', send: `2,460.00${ENTER}` },
      { expect: 'Fund release approved' },
    ];
    const r = await ptyRun(['fund', 'approve', e.id], steps, { home: home.dir, cols, rows });
    expectCompleted(r);
    expect(r.exit_code, r.output).toBe(0);
    const code = 'AUTH-20260630-ACME-0001';
    const screen = await screenAtStep(r, 1, cols, rows);
    expectApprovalScreen(
      screen,
      cols,
      /^Profile local · local engine \(no real money\) · /,
      [e.id, await number(e.id), ...NPIS, '1,300.00', '1,271.10', '2,460.00', code],
      `Release ${await number(e.id)} (Maria Garcia)`,
    );
    expect(oneLine(screen.slice(0, 2))).toContain(join(home.dir, 'local.sqlite'));
    // The code is the approver's reference, said in the review; the one offered follows the format.
    expect(oneLine(screen)).toContain('The authorization code is your reference for the audit trail (AUTH-<date>-<organization>-<sequence>)');
    // Enter at the amount asked again: nothing was sent before the amount was typed.
    expect((await screenAtStep(r, 2, cols, rows)).join('\n')).not.toMatch(/approved/);
    expect(await fundedCodes(home.dir, e.id)).toEqual([code]);
  });

  it('the line naming where the money moves is first: a transfer REFUNDED and a code of another shape are said after it, the benefit and the question on screen', async () => {
    const e = await adjudicated();
    expect((await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', 'AUTH-20260630-ACME-0001', '--yes'])).code).toBe(0);
    expect((await run(['local', 'clock', 'advance', '2d'])).code).toBe(0);
    expect((await run(['local', 'simulate', 'refund', e.id])).code).toBe(0);
    const r = await ptyRun(['fund', 'approve', e.id, '--auth-code', 'my-ref-8'], [{ expect: 'to confirm', send: CTRL_C }], { home: home.dir, cols, rows });
    expectCompleted(r);
    expect(r.exit_code, r.output).toBe(2);
    const screen = await screenAtStep(r, 0, cols, rows);
    const why = screen.join('\n');
    expect(screen[0], why).toMatch(/^Profile local · local engine \(no real money\) · /);
    expect(oneLine(screen), why).toMatch(/is REFUNDED; this approval starts a new transfer/);
    expect(oneLine(screen), why).toContain('warning: my-ref-8 is not in the recommended format');
    expect(why).toMatch(/Benefit amount\s+2,460\.00/);
    expect(oneLine(screen), why).toContain('type the amount to release (2,460.00) to confirm');
    expect(await fundedCodes(home.dir, e.id)).toEqual(['AUTH-20260630-ACME-0001']);
  });

  it('--amount other than the benefit is refused before the review is drawn (exit 4), naming both amounts as tpa writes them; nothing sent', async () => {
    const e = await adjudicated();
    const r = await ptyRun(['fund', 'approve', e.id, '--amount', '999'], [], { home: home.dir, cols, rows });
    expectCompleted(r);
    expect(r.exit_code, r.output).toBe(4);
    const said = r.output.replace(/\s+/g, ' ');
    expect(said).toMatch(/--amount 999\.00 differs from the benefit of 2,460\.00: only the adjudicated benefit can be released; nothing was sent/);
    expect(r.output).not.toMatch(/Fund release for encounter|Profile local|Benefit amount|Authorization code|to confirm/);
    expect((await run(['settlement', 'show', e.id])).code).toBe(7);
  });

  it('an amount other than the benefit is asked again at the prompt, saying why; the printed format "$2,460.00" is taken', async () => {
    const e = await adjudicated();
    const steps: Step[] = [
      { expect: '? Authorization code', send: ENTER },
      { expect: 'to confirm', send: `3200${ENTER}` },
      { expect: 'differs from the amount of 2,460.00' },
      { send: [...rubOut('3200'), `2,46.00${ENTER}`] },
      { expect: 'groups of three digits' },
      { send: [...rubOut('2,46.00'), `$2,460.00${ENTER}`] },
      { expect: 'Fund release approved' },
    ];
    const r = await ptyRun(['fund', 'approve', e.id], steps, { home: home.dir, cols, rows });
    expectCompleted(r);
    expect(r.exit_code, r.output).toBe(0);
    const refused = (await screenAtStep(r, 2, cols, rows)).join('\n');
    expect(refused).toMatch(/3,200\.00 differs from the amount of 2,460\.00/);
    expect(refused).not.toMatch(/approved/);
    expect((await run(['settlement', 'show', e.id, '-o', 'json'])).json()).toMatchObject({ total_amount: 2460, status: 'INITIATED' });
  });

  it('the code offered is the next free one; a code of another shape is warned about and sent; a used one is asked again', async () => {
    const first = await adjudicated();
    const second = await adjudicated('MBR-1002');
    const own = await ptyRun(
      ['fund', 'approve', first.id],
      [
        { expect: '? Authorization code', send: `my-ref-7${ENTER}` },
        { expect: 'to confirm', send: `${first.amount}${ENTER}` },
        { expect: 'Fund release approved' },
      ],
      { home: home.dir, cols, rows },
    );
    expectCompleted(own);
    expect(own.exit_code, own.output).toBe(0);
    // Typed under a review that states the format: one short line, the line naming where the money
    // moves still the screen's first at the amount to type.
    expect(own.output.replace(/\s+/g, ' ')).toContain('warning: my-ref-7 is not in the recommended format above; it is sent as given');
    const atAmount = await screenAtStep(own, 1, cols, rows);
    expect(atAmount[0], atAmount.join('\n')).toMatch(/^Profile local · /);
    expect(await fundedCodes(home.dir, first.id)).toEqual(['my-ref-7']);
    const again = await ptyRun(
      ['fund', 'approve', second.id],
      [
        { expect: '? Authorization code', send: `MY-REF-7${ENTER}` },
        { expect: 'is used already' },
        { send: [...rubOut('MY-REF-7'), ENTER] },
        { expect: 'to confirm', send: `${second.amount}${ENTER}` },
        { expect: 'Fund release approved' },
      ],
      { home: home.dir, cols, rows },
    );
    expectCompleted(again);
    expect(again.exit_code, again.output).toBe(0);
    expect(again.output).not.toMatch(/warning: AUTH/);
    expect(await fundedCodes(home.dir, second.id)).toEqual(['AUTH-20260630-ACME-0001']);
  });

  it('tpa api to the fund release asks under the line naming where the money moves, naming the encounter, amount and code, the amount typed back; declined, nothing is sent; no colour with --no-color', async () => {
    const e = await adjudicated();
    const code = 'AUTH-20260630-ACME-0009';
    const body = JSON.stringify({ encounter_id: e.id, amount: 2460, authorization_code: code });
    const r = await ptyRun(['api', 'POST', '/tpa-api/v1/funding/approve/', '-d', body, '--no-color'], [{ expect: 'to confirm', send: CTRL_C }], {
      home: home.dir,
      cols,
      rows,
    });
    expectCompleted(r);
    expect(r.exit_code, r.output).toBe(2);
    const screen = await screenAtStep(r, 0, cols, rows);
    const question = screen.findIndex((l) => l.startsWith('? Release 2,460.00'));
    expect(question, `${screen.join('\n')}\n---\n${JSON.stringify(r.raw)}`).toBeGreaterThan(0);
    expect(screen[question - 1]).toMatch(/^Profile local · local engine \(no real money\) · /);
    // Wrapped at spaces: the encounter, the code and the path are whole on screen.
    const asked = oneLine(screen.slice(question));
    for (const word of [e.id, code, '/tpa-api/v1/funding/approve/', 'type the amount to release (2,460.00) to confirm']) expect(asked).toContain(word);
    expect(screen.every((l) => l.length <= cols)).toBe(true);
    // --no-color: no colour or bold anywhere (cursor movements aside).
    // biome-ignore lint/suspicious/noControlCharactersInRegex: an escape sequence is what is looked for
    expect(r.raw).not.toMatch(/\x1b\[[0-9;]*m/);
    expect((await run(['settlement', 'show', e.id])).code).toBe(7);
    // Typed back, it is sent.
    const sent = await ptyRun(['api', 'POST', '/tpa-api/v1/funding/approve/', '-d', body], [{ expect: 'to confirm', send: `2460${ENTER}` }], {
      home: home.dir,
      cols,
      rows,
    });
    expectCompleted(sent);
    expect(sent.exit_code, sent.output).toBe(0);
    expect(await fundedCodes(home.dir, e.id)).toEqual([code]);
  });

  it('--auth-code already used is refused before the review, as a typed one is; nothing sent', async () => {
    const first = await adjudicated();
    const second = await adjudicated('MBR-1002');
    const a = await run(['fund', 'approve', first.id, '--amount', first.amount, '--auth-code', 'AUTH-20260630-FLAG-0001', '--yes']);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stderr).not.toMatch(/warning/);
    for (const code of ['AUTH-20260630-FLAG-0001', ' auth-20260630-flag-0001 ']) {
      const r = await ptyRun(['fund', 'approve', second.id, '--auth-code', code], [], { home: home.dir, cols, rows });
      expectCompleted(r);
      expect(r.exit_code, r.output).toBe(4);
      expect(r.output.replace(/\s+/g, ' ')).toMatch(/--auth-code AUTH-20260630-FLAG-0001 is used already \(by the approval of enc_\w+/i);
      expect(r.output).not.toMatch(/Fund release for encounter|to confirm/);
    }
    expect(await fundedCodes(home.dir, second.id)).toEqual([]);
  });
});

describe('fund approve on a sandbox profile over tpa local serve', () => {
  let home: ReturnType<typeof tempDir>;
  let server: Served;
  beforeAll(async () => {
    home = tempDir();
    expect((await runTpa(['local', 'clock', 'set', CLOCK], { home: home.dir })).code).toBe(0);
    server = await serve(home.dir);
    await login(home.dir, server.url);
  });
  afterAll(async () => {
    await server.stop();
    home.remove();
  });

  it.each(SIZES)('at $cols×$rows: the first line names the profile, sandbox and the URL; the question starts [sandbox]', async ({ cols, rows }) => {
    const run = (args: string[]) => runTpa(args, { home: home.dir, env: { TPA_PROFILE: 'local' } });
    const e = await adjudicatedEncounter(run, home.dir, { template: [...TEMPLATE, '--patient', cols === 80 ? 'MBR-1001' : 'MBR-1002'] });
    const number = (await run(['ledger', 'show', e.id, '-o', 'json'])).json<{ encounter: { encounter_number: string } }>().encounter.encounter_number;
    const r = await ptyRun(
      ['fund', 'approve', e.id, '-p', 'sandbox'],
      [{ expect: '? Authorization code', send: ENTER }, { expect: 'to confirm', send: `${e.amount}${ENTER}` }, { expect: 'Fund release approved' }],
      { home: home.dir, cols, rows },
    );
    expectCompleted(r);
    expect(r.exit_code, r.output).toBe(0);
    const screen = await screenAtStep(r, 1, cols, rows);
    expect(reviewStart(screen)).toBe(`Profile sandbox · sandbox · ${server.url}`);
    expect(oneLine(screen)).toMatch(new RegExp(`\\[sandbox\\] Release ${number} \\([^)]+\\) to 4 providers`));
    for (const line of screen) expect(line.length).toBeLessThanOrEqual(cols);
  });
});

describe('fund approve on a production profile (OAuth over mutual TLS to tpa local serve on 127.0.0.1)', () => {
  let certs: ReturnType<typeof tempDir>;
  let home: ReturnType<typeof tempDir>;
  let server: Served;
  beforeAll(async () => {
    certs = tempDir();
    home = tempDir();
    const ca = new TestCa(certs.dir);
    ca.server();
    ca.client('client');
    expect((await runTpa(['local', 'clock', 'set', CLOCK], { home: home.dir })).code).toBe(0);
    const f = (name: string) => join(certs.dir, name);
    server = await serve(home.dir, ['--tls-cert', f('server.pem'), '--tls-key', f('server-key.pem'), '--client-ca', f('ca.pem')]);
    const logged = await runTpa(mtlsLoginArgs({ url: server.url, dir: certs.dir, profile: 'prod' }), { home: home.dir });
    expect(logged.code, logged.stderr).toBe(0);
  });
  afterAll(async () => {
    await server.stop();
    home.remove();
    certs.remove();
  });

  it.each(SIZES)(
    'at $cols×$rows: PRODUCTION in capitals (inverse on a colour terminal) in the first line, and [PRODUCTION] in the question',
    async ({ cols, rows }) => {
      const run = (args: string[]) => runTpa(args, { home: home.dir });
      const e = await adjudicatedEncounter(run, home.dir, { template: [...TEMPLATE, '--patient', cols === 80 ? 'MBR-1001' : 'MBR-1002'] });
      const r = await ptyRun(
        ['fund', 'approve', e.id, '-p', 'prod'],
        [
          { expect: '? Authorization code', send: ENTER },
          { expect: 'to confirm', send: '\x03' },
        ],
        { home: home.dir, cols, rows },
      );
      expectCompleted(r);
      expect(r.exit_code, r.output).toBe(2);
      const screen = await screenAtStep(r, 1, cols, rows);
      expect(reviewStart(screen)).toBe(`Profile prod · PRODUCTION · ${server.url}`);
      expect(r.raw).toContain('\x1b[1m\x1b[7mPRODUCTION\x1b[27m\x1b[22m');
      expect(oneLine(screen)).toMatch(/\[PRODUCTION\] Release ENC-\d{4}-\d{6} \([^)]+\) to 4 providers, which cannot be undone/);
      expect((await run(['settlement', 'show', e.id])).code).toBe(7);
    },
  );
});
