// Text from outside is data: notes, authorization codes and claim fields reach a spreadsheet and a
// terminal shown, never obeyed, and reach scripts (-o json) exactly as they were typed.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTpa, testEnv, TPA_BIN, useTpaHome } from '../helpers/cli.js';
import { adjudicatedEncounter, claimFile } from '../helpers/encounters.js';

const home = useTpaHome(beforeEach, afterEach);
const run = home.run;
const DRIVER = fileURLToPath(new URL('../helpers/pty-drive.py', import.meta.url));
const onTerminal = (args: string[]) => runTpa(args, { home: home.dir, env: { TPA_ADJUDICATION_DELAY: '0' }, tty: true, columns: 200 });

const FORMULA_NOTE = '=HYPERLINK("http://evil","x")\u001b[31mRED\u001b]0;TITLE\u0007';
// tpa's own escapes (its colours, clearing the progress line), and what else a terminal would obey.
// biome-ignore lint/suspicious/noControlCharactersInRegex: escapes are what the test looks for
const OWN_ESCAPES = /\u001b\[(?:1|22|2|31|32|33|39)m|\r\u001b\[K/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: escapes are what the test looks for
const OBEYED = /[\u0007\u001b\u009b]/;
/** The text less tpa's own escapes. */
const obeyed = (text: string) => text.replace(OWN_ESCAPES, '');

async function scheduleWithNote(note: string): Promise<void> {
  expect((await run(['ratesheet', 'init', 'BLD-1001'])).code).toBe(0);
  const added = await run(['ratesheet', 'add', 'BLD-1001', '--ssp', 'HD-0401', '--rate-type', 'CASE_RATE', '--rate', '2100', '--notes', note]);
  expect(added.code, added.stderr).toBe(0);
}

describe('text from outside', () => {
  it('ratesheet export and show -o csv put a quote before a formula-like note; import reads it back unchanged; json keeps it exact', async () => {
    await scheduleWithNote(FORMULA_NOTE);
    const exported = await run(['ratesheet', 'export', 'BLD-1001']);
    expect(exported.stdout.split('\n')[1]).toBe(`HD-0401,CASE_RATE,2100.00,,"'=HYPERLINK(""http://evil"",""x"")\u001b[31mRED\u001b]0;TITLE\u0007"`);
    const shown = await run(['ratesheet', 'show', 'BLD-1001', '-o', 'csv']);
    expect(shown.stdout).toContain(`"'=HYPERLINK(`);
    expect(shown.stdout).not.toMatch(/(^|,)"?=HYPERLINK/m);
    const file = join(home.dir, 'rates.csv');
    writeFileSync(file, exported.stdout);
    const again = await run(['ratesheet', 'import', 'BLD-1001', file, '--dry-run', '-o', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.stringify(again.json())).toMatch(/"unchanged":1/);
    const json = await run(['ratesheet', 'show', 'BLD-1001', '-o', 'json']);
    expect(json.json<{ rate_schedule: { items: { notes: string }[] } }>().rate_schedule.items[0]!.notes).toBe(FORMULA_NOTE);
  });

  it('notes starting with +, -, @ or tab are quoted too', async () => {
    await scheduleWithNote("+1+cmd|'/c calc'!A0");
    expect((await run(['ratesheet', 'export', 'BLD-1001'])).stdout).toContain(",'+1+cmd|'/c calc'!A0\n");
    for (const note of ['@SUM(1)', '\t=1+1', '-2+3']) {
      expect((await run(['ratesheet', 'add', 'BLD-1001', '--ssp', 'HD-0401', '--rate-type', 'CASE_RATE', '--rate', '2100', '--notes', note])).code).toBe(0);
      expect((await run(['ratesheet', 'export', 'BLD-1001'])).stdout).toContain(`,'${note}`);
    }
  });

  it('ratesheet show and export on a terminal show the escapes of a note instead of sending them', async () => {
    await scheduleWithNote(FORMULA_NOTE);
    for (const args of [
      ['ratesheet', 'show', 'BLD-1001'],
      ['ratesheet', 'export', 'BLD-1001'],
    ]) {
      const r = await onTerminal(args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('\\u001b[31mRED\\u001b]0;TITLE\\u0007');
      expect(obeyed(r.stdout)).not.toMatch(OBEYED);
    }
  });

  it('ledger show on a terminal shows funding notes with their escapes visible; -o json keeps them exact', async () => {
    const e = await adjudicatedEncounter(run, home.dir);
    const note = 'paid \u001b]0;PWN\u0007\u009b2J ok';
    const approved = await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', 'AUTH-0001', '--notes', note, '--yes']);
    expect(approved.code, approved.stderr).toBe(0);
    const shown = await onTerminal(['ledger', 'show', e.id]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('\\u001b]0;PWN');
    expect(obeyed(shown.stdout)).not.toMatch(OBEYED);
    const json = await run(['ledger', 'show', e.id, '-o', 'json']);
    expect(json.stdout).toContain(JSON.stringify(note).slice(1, -1));
  });

  it('fund history and the audit list -o csv put a quote before a formula-like authorization code; json keeps it', async () => {
    const e = await adjudicatedEncounter(run, home.dir);
    const code = '=HYPERLINK("x")';
    expect((await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', code, '--yes'])).code).toBe(0);
    const history = await run(['fund', 'history', '-o', 'csv']);
    expect(history.stdout).toContain(`"'=HYPERLINK(""x"")"`);
    expect(history.stdout).not.toMatch(/(^|,)"?=HYPERLINK/m);
    const audit = await run(['local', 'audit', 'list', '--type', 'FUNDING_APPROVED', '-o', 'csv']);
    expect(audit.stdout).not.toMatch(/(^|,)"?=HYPERLINK/m);
    expect((await run(['fund', 'history', '-o', 'json'])).json<{ authorization_code: string }[]>()[0]!.authorization_code).toBe(code);
  });

  it('claim validate and submit name a hostile field value with its escapes visible on stderr', async () => {
    const file = await claimFile(run, home.dir);
    const claim = JSON.parse(readFileSync(file, 'utf8'));
    claim.patient.reference = 'Patient/\u001b[5mX\u001b]0;PWN\u0007';
    writeFileSync(file, JSON.stringify(claim));
    for (const args of [
      ['claim', 'validate', file],
      ['claim', 'submit', file, file],
    ]) {
      const r = await onTerminal(args);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('Patient/\\u001b[5mX\\u001b]0;PWN\\u0007');
      expect(obeyed(r.stderr)).not.toMatch(OBEYED);
    }
  });

  it('a line feed in a file name is shown as an escape on stderr and in tables: the name cannot forge a line of its own', async () => {
    const file = await claimFile(run, home.dir);
    const folder = join(home.dir, 'hostile');
    mkdirSync(folder);
    copyFileSync(file, join(folder, 'a.json'));
    const name = 'z.json\n26 claims: 26 valid, 0 invalid\nx.json';
    writeFileSync(join(folder, name), '{"resourceType":"Claim"}');
    const forged = /^26 claims: 26 valid, 0 invalid/m;
    const shown = 'z.json\\u000a26 claims: 26 valid, 0 invalid\\u000ax.json';
    for (const args of [
      ['claim', 'validate', `${folder}/`],
      ['claim', 'validate', join(folder, name)],
      ['claim', 'submit', `${folder}/`],
    ]) {
      const r = await onTerminal(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain(shown);
      expect(r.stderr, args.join(' ')).not.toMatch(forged);
      expect(r.stdout, args.join(' ')).not.toMatch(forged);
    }
    // The batch's journal, shown as a table: the name on its one row.
    const [job] = (await run(['jobs', '-o', 'json'])).json<{ id: string }[]>();
    const show = await onTerminal(['jobs', 'show', job!.id]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(shown);
    expect(show.stdout).not.toMatch(/│ 26 claims: 26 valid/);
    // -o json keeps the name exact.
    const json = (await run(['claim', 'validate', `${folder}/`, '-o', 'json'])).json<{ source: string }[]>();
    expect(json.map((c) => c.source)).toContain(join(folder, name));
  });

  it('claim submit -o csv puts a quote before a formula-like file name in its source column', async () => {
    const file = await claimFile(run, home.dir);
    const claim = JSON.parse(readFileSync(file, 'utf8'));
    claim.item[0].productOrService.coding[0].code = '=1+1\u001b[31m';
    writeFileSync(join(home.dir, '=1+1.json'), JSON.stringify(claim));
    const r = await run(['claim', 'submit', '=1+1.json', file, '-o', 'csv']);
    expect(r.stderr).toContain(`(got "=1+1\\u001b[31m")`);
    expect(r.stdout).toMatch(/^'=1\+1\.json,/m);
    expect(r.stdout).not.toMatch(/(^|,)"?=1\+1/m);
  });
});

// Bidirectional controls reorder what follows them on a line: "paid 0.01" can be made to read otherwise.
const BIDI = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'];
const BIDI_NOTE = `ok ${BIDI.join('x')} 0.01`;
const RAW_BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;

describe('text from outside: bidirectional controls, line breaks, quotes', () => {
  it('ledger show on a terminal shows bidirectional controls as escapes, with colours or --no-color; -o json keeps them', async () => {
    const e = await adjudicatedEncounter(run, home.dir);
    const note = `${BIDI_NOTE}\nStatus  PAID\r\u001b[2K`;
    expect((await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', `AUTH\u202e1`, '--notes', note, '--yes'])).code).toBe(0);
    for (const extra of [[], ['--no-color']]) {
      const shown = await onTerminal(['ledger', 'show', e.id, ...extra]);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).not.toMatch(RAW_BIDI);
      expect(obeyed(shown.stdout)).not.toMatch(OBEYED);
      expect(shown.stdout).toContain('\\u202e');
      expect(shown.stdout).toContain('AUTH\\u202e1');
      // The note's own line break does not start a line of its own that could pass for another field.
      expect(shown.stdout).not.toMatch(/^Status {2}PAID/m);
    }
    for (const args of [
      ['fund', 'history'],
      ['local', 'audit', 'list'],
      ['settlement', 'show', e.id],
    ]) {
      const shown = await onTerminal(args);
      expect(shown.code, `${args.join(' ')}: ${shown.stderr}`).toBe(0);
      expect(shown.stdout, args.join(' ')).not.toMatch(RAW_BIDI);
    }
    const json = await run(['ledger', 'show', e.id, '-o', 'json']);
    expect(JSON.stringify(json.json())).toContain(JSON.stringify(note).slice(1, -1));
  });

  it('an error message quoting outside text shows its bidirectional controls as escapes on stderr', async () => {
    const r = await onTerminal(['ledger', 'show', 'enc_\u202egnp.exe']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('enc_\\u202egnp.exe');
    expect(r.stderr).not.toMatch(RAW_BIDI);
  });

  it('under a real terminal (a pty), ledger show sends no bidirectional control and no escape but its own colours', async () => {
    const e = await adjudicatedEncounter(run, home.dir);
    expect(
      (await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', 'AUTH-0001', '--notes', `${BIDI_NOTE}\u001b]0;PWN\u0007`, '--yes'])).code,
    ).toBe(0);
    // What tpa itself writes to the terminal, with no pager between (PAGER=cat).
    const env = testEnv({ home: home.dir, env: { TERM: 'xterm-256color', PAGER: 'cat' } });
    const script = { argv: [process.execPath, TPA_BIN, 'ledger', 'show', e.id], cwd: home.dir, steps: [], cols: 160, rows: 40, step_timeout: 60, timeout: 150 };
    const report = await new Promise<{ exit_code: number | null; output: string }>((resolve, reject) => {
      const child = spawn('python3', [DRIVER], { env, stdio: ['pipe', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.on('error', reject);
      child.on('close', () => resolve(JSON.parse(out)));
      child.stdin.end(JSON.stringify(script));
    });
    expect(report.exit_code, report.output).toBe(0);
    expect(report.output).toContain('\\u202e');
    expect(report.output).toContain('\\u001b]0;PWN\\u0007');
    expect(report.output).not.toMatch(RAW_BIDI);
    expect(obeyed(report.output.replace(/\r\n/g, '\n'))).not.toMatch(OBEYED);
  });

  it('a note that starts with a quote before a formula character exports guarded and imports back unchanged', async () => {
    await scheduleWithNote("'=1+1");
    expect((await run(['ratesheet', 'add', 'BLD-1001', '--ssp', 'HD-0401', '--rate-type', 'CASE_RATE', '--rate', '2100', '--notes', "'=1+1"])).code).toBe(0);
    const exported = await run(['ratesheet', 'export', 'BLD-1001']);
    expect(exported.stdout.split('\n')[1]).toBe("HD-0401,CASE_RATE,2100.00,,''=1+1");
    const file = join(home.dir, 'rates.csv');
    writeFileSync(file, exported.stdout);
    const again = await run(['ratesheet', 'import', 'BLD-1001', file, '--dry-run', '-o', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.stringify(again.json())).toMatch(/"unchanged":1/);
  });

  it('ledger show -o csv puts a quote before a formula-like authorization code and note; amounts stay numbers', async () => {
    const e = await adjudicatedEncounter(run, home.dir);
    expect((await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', '=HYPERLINK("x")', '--notes', '-1+2', '--yes'])).code).toBe(0);
    const csv = await run(['ledger', 'show', e.id, '-o', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toContain(`"'=HYPERLINK(""x"")"`);
    expect(csv.stdout).not.toMatch(/(^|,)"?[=+@-](?!\d+(\.\d+)?(,|$))/m);
    expect(csv.stdout).toMatch(new RegExp(`,${e.amount.replace(/\.00$/, '').replace('.', '\\.')}(\\.0+)?$`, 'm'));
  });
});
