// The ledger and its amounts as a person sees them in a real terminal,
// at 80×30 and 120×40: the screen drawn by a terminal emulator from what `tpa` wrote under a pty.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { ptyRun, screenOf, SIZES, type PtyResult } from '../helpers/pty.js';

type Row = Record<string, any>;
const CLOCK = '2026-11-20T12:00:00Z';
const LATER = '2026-11-25T12:00:00Z';

let home: ReturnType<typeof tempDir>;
const at = (clock: string, args: string[]) => runTpa(args, { home: home.dir, env: { TPA_CLOCK: clock } });
const ids: string[] = [];

beforeAll(async () => {
  home = tempDir();
  // Four institutional encounters: one whose transfer failed, one refunded, one settled, one adjudicated.
  for (let d = 10; d < 14; d++) {
    const file = join(home.dir, `c${d}.json`);
    writeFileSync(file, JSON.stringify(claimTemplate({ type: 'institutional', serviceDate: `2026-11-${d}` })));
    const r = await at(CLOCK, ['claim', 'submit', file, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    ids.push(r.json<Row>().external_claim_id);
  }
  for (const [i, id] of ids.slice(0, 3).entries()) {
    const r = await at(CLOCK, ['fund', 'approve', id, '--amount', '2460.00', '--auth-code', `AUTH-20261120-PTY-000${i + 1}`, '--yes']);
    expect(r.code, r.stderr).toBe(0);
  }
  expect((await at(CLOCK, ['local', 'simulate', 'settlement-failure', ids[0]!])).code).toBe(0);
  expect((await at(LATER, ['local', 'simulate', 'refund', ids[1]!])).code).toBe(0);
});
afterAll(() => home.remove());

async function onScreen(args: string[], cols: number, rows: number): Promise<{ r: PtyResult; screen: string[] }> {
  const r = await ptyRun(args, [], { home: home.dir, env: { TPA_CLOCK: LATER }, cols, rows });
  expect(r.error, r.output).toBeNull();
  expect(r.exit_code, r.output).toBe(0);
  return { r, screen: (await screenOf(r.raw, cols, rows)).filter((l) => l.trim() !== '') };
}

describe.each(SIZES)('at $cols×$rows', ({ cols, rows }) => {
  it('ledger list: the page hint is the last thing on screen; one line an entry at any width, with the failed and refunded flags', async () => {
    const { screen } = await onScreen(['ledger', 'list', '--limit', '3'], cols, rows);
    // The hint may wrap (at spaces) at 80 columns: its lines, joined, end the screen.
    expect(screen.slice(-3)).toEqual([
      'showing 1–3 of 4',
      '  next page:   tpa ledger list --limit 3 --offset 3',
      '  all of them: tpa ledger list --limit 3 --all',
    ]);
    const text = screen.join('\n');
    if (cols >= 100) {
      // The first page holds the three newest: the refunded and the failed are two of them.
      const line = (id: string) => screen.find((l) => l.includes(id));
      expect(line(ids[3]!)).toMatch(/ADJUDICATED\s+│\s+2,460\.00 │$/);
      expect(line(ids[2]!)).toMatch(/RECONCILED\s+│\s+2,460\.00 │$/);
      expect(line(ids[1]!)).toMatch(/ADJUDICATED ↩ refunded\s+│\s+2,460\.00 │$/);
      expect(screen.filter((l) => l.startsWith('│ ')).length).toBe(4); // the header and three entries, one line each
    } else {
      // Narrower, still a line an entry: the id, the status with its flag, the benefit.
      expect(screen.find((l) => l.includes(ids[1]!))).toMatch(/│ ADJUDICATED ↩ refunded\s+│\s+2,460\.00 │$/);
      expect(screen.filter((l) => l.startsWith('│ ')).length, text).toBe(4);
    }
    for (const l of screen) expect(l.length).toBeLessThanOrEqual(cols);
  });

  it('ledger show: the bold Payer responsibility and Balance end in the column of the other amounts', async () => {
    const { r } = await onScreen(['ledger', 'show', ids[1]!], cols, rows);
    expect(r.raw).toContain('\x1b[1m'); // the bold is really there
    const money = r.output.replace(/\r/g, '').split('\n');
    const end = (label: string) => {
      const line = money.find((l) => l.startsWith(`${label} `));
      expect(line, r.output).toBeDefined();
      const m = /\d\.\d\d(?!\d)/.exec(line!)!;
      return m.index + m[0].length;
    };
    const ends = ['Submitted charges', 'Allowed', '  Copay', 'Patient responsibility', 'Payer responsibility', 'Balance'].map(end);
    expect(new Set(ends).size, r.output).toBe(1);
  });
});
