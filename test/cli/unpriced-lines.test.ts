// A line tpa cannot price no longer refuses its claim (docs/money-rules.md "Lines tpa does not
// price"): an 837P with a HCPCS Level II drug line and an 837I with a room-and-board revenue code
// without a procedure code are submitted, adjudicated (the contracted lines paid, the others DENIED
// CARC-96 with their remark codes), funded and remitted, in-process and over a real `tpa local serve`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCents } from '../../src/domain/money.js';
import { type RunResult, runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { login, type Served, serve } from '../helpers/server.js';
import { cents, ndjson } from '../helpers/values.js';
import { checked835 } from '../helpers/x12-835-check.js';
import { institutionalClaim, interchange, professionalClaim, transaction } from '../helpers/x12.js';

type Body = Record<string, any>;
const CLOCK = '2026-03-02T10:00:00Z';

describe.each(['in-process', 'over local serve'] as const)('lines tpa does not price, from an 837 (%s)', (transport) => {
  let home: ReturnType<typeof tempDir>;
  let server: Served | undefined;
  let run: (args: string[], tty?: boolean) => Promise<RunResult>;
  beforeAll(async () => {
    home = tempDir();
    expect((await runTpa(['local', 'clock', 'set', CLOCK], { home: home.dir })).code).toBe(0);
    const env = transport === 'in-process' ? {} : { TPA_PROFILE: 'sandbox' };
    if (transport !== 'in-process') {
      server = await serve(home.dir);
      await login(home.dir, server.url);
    }
    run = (args, tty) => runTpa(args, { home: home.dir, env, ...(tty ? { tty: true, columns: 160 } : {}) });
  });
  afterAll(async () => {
    await server?.stop();
    home.remove();
  });
  const ok = async (args: string[], tty?: boolean): Promise<RunResult> => {
    const r = await run(args, tty);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r;
  };

  /** Submits an 837 file and answers its encounter's ledger detail once adjudicated. */
  async function submitted(name: string, text: string): Promise<Body> {
    writeFileSync(join(home.dir, name), text);
    const row = ndjson((await ok(['claim', 'submit', join(home.dir, name), '-o', 'ndjson'])).stdout)[0]!;
    expect(row.status, JSON.stringify(row)).toBe('ACKNOWLEDGED');
    await ok(['claim', 'poll', row.submission_id, '--wait', '-o', 'json']);
    return (await ok(['ledger', 'show', row.external_claim_id, '-o', 'json'])).json<Body>();
  }

  it('an 837P drug line (J3490) is DENIED CARC-96 N130 beside the paid colonoscopy; the 835 pays the one and denies the other', async () => {
    const text = interchange([
      transaction({
        st02: '0001',
        type: 'professional',
        claims: [
          professionalClaim({
            clm01: 'DRUG-1',
            member: 'MBR-1003',
            lines: [
              { cpt: '45378', charge: '1800', ref6r: 'L1' },
              { cpt: 'J3490', charge: '20', ref6r: 'L2' },
            ],
          }),
        ],
      }),
    ]);
    const detail = await submitted('drug.837', text);
    expect(detail.encounter.status).toBe('ADJUDICATED');
    expect(detail.service_lines.map((l: Body) => [l.cpt_code, l.status, l.denial_code, l.remark_codes ?? null])).toEqual([
      ['45378', 'ALLOWED', null, null],
      ['J3490', 'DENIED', 'CARC-96', ['N130']],
    ]);
    const benefit = detail.service_lines[0].benefit_amount as number;
    await ok([
      'fund',
      'approve',
      detail.encounter.id,
      '--amount',
      formatCents(cents(benefit)),
      '--auth-code',
      `AUTH-20260302-ACME-${transport.length}`,
      '--yes',
    ]);
    expect((await runTpa(['local', 'clock', 'advance', '2d'], { home: home.dir })).code).toBe(0);
    const remit = (await ok(['settlement', 'remit', detail.encounter.id])).stdout;
    const { transactions } = checked835(remit);
    // The payee's payment first; the billing provider, paid for no line here, gets its informational copy (BPR*H).
    expect(transactions.map((t) => t.segments.find((s) => s[0] === 'BPR')![1])).toEqual(['I', 'H']);
    const segments = transactions[0]!.segments;
    const svc = segments.filter((s) => s[0] === 'SVC').map((s) => s[1]);
    expect(svc).toEqual(['HC:45378', 'HC:J3490']);
    // The drug line's adjustment: contractual, 96, its whole charge.
    const afterDrug = segments.slice(segments.findIndex((s) => s[0] === 'SVC' && s[1] === 'HC:J3490'));
    expect(afterDrug.find((s) => s[0] === 'CAS')).toEqual(expect.arrayContaining(['CAS', 'CO', '96', '20']));
  });

  it('an 837P line of decimal units (SV104 1.003) is kept as sent and priced by Riverside’s flat rate, half up to the cent', async () => {
    const text = interchange([
      transaction({
        st02: '0003',
        type: 'professional',
        claims: [
          professionalClaim({ clm01: 'UNITS-1', member: 'MBR-1003', lines: [{ cpt: '88305', charge: '200', units: '1.003' }] }).filter(
            (seg) => !seg.startsWith('NM1*82'),
          ),
        ],
      }),
    ]);
    const detail = await submitted('units.837', text);
    // 95.00 × 1.003 = 95.285: 95.29.
    expect(detail.service_lines.map((l: Body) => [l.cpt_code, l.quantity, l.unit_of_measure ?? null, l.allowed_amount])).toEqual([
      ['88305', 1.003, null, 95.29],
    ]);
    const line = detail.service_lines[0] as Body;
    expect(cents(line.allowed_amount)).toBe(cents(line.benefit_amount) + cents(line.patient_responsibility));
  });

  it('an 837I room-and-board line without a procedure code (0120) is DENIED CARC-96 M51; the facility’s other lines are paid', async () => {
    const text = interchange(
      [
        transaction({
          st02: '0002',
          type: 'institutional',
          claims: [
            institutionalClaim({
              clm01: 'ROOM-1',
              member: 'MBR-1003',
              lines: [
                { revenue: '0750', cpt: '45380', charge: '2400' },
                { revenue: '0120', charge: '800' },
              ],
            }),
          ],
        }),
      ],
      { gs08: '005010X223A2' },
    );
    // claim validate calls it valid and says what the engine would do with the room line.
    writeFileSync(join(home.dir, 'room-check.837'), text);
    const check = await run(['claim', 'validate', join(home.dir, 'room-check.837'), '-o', 'json']);
    expect(check.code, check.stderr).toBe(0);
    const checked = check.json<Body[]>()[0]!;
    expect(checked).toMatchObject({ valid: true, cpt_codes: ['45380', 'rev 0120'] });
    // On the local profile the engine is asked too (over local serve, the service judges it when sent).
    if (transport === 'in-process') expect(checked.engine_check.says).toContain('line 2 DENIED CARC-96 M51');
    const detail = await submitted('room.837', text);
    expect(detail.encounter.status).toBe('ADJUDICATED');
    expect(detail.service_lines.map((l: Body) => [l.cpt_code, l.revenue_code, l.status, l.denial_code, l.remark_codes ?? null])).toEqual([
      ['45380', '0750', 'ALLOWED', null, null],
      [null, '0120', 'DENIED', 'CARC-96', ['M51']],
    ]);
    const show = (await ok(['ledger', 'show', detail.encounter.id], true)).stdout;
    expect(show).toContain('rev 0120');
    expect(show).toContain('CARC-96 M51');
  });
});
