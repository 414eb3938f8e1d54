// Text from outside is data: notes, authorization codes and claim fields reach a spreadsheet and a
// terminal shown, never obeyed, and reach scripts (-o json) exactly as they were typed.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTpa, useTpaHome } from '../helpers/cli.js';
import { adjudicatedEncounter, claimFile } from '../helpers/encounters.js';

const home = useTpaHome(beforeEach, afterEach);
const run = home.run;
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
