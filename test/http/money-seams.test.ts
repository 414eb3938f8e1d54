// Over a real `tpa local serve`, and in-process on the same data: one rate a date through a
// finalize, and the ledger of a transfer whose reconciliation failed (docs/money-rules.md "Rates in
// force on each date", "Settlement").
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTpa } from '../helpers/cli.js';
import { claimFile } from '../helpers/encounters.js';
import { tempDir } from '../helpers/engine.js';
import { login, serve, type Served } from '../helpers/server.js';

type Body = Record<string, any>;
let home: ReturnType<typeof tempDir>;
let server: Served;
const local = (args: string[]) => runTpa(args, { home: home.dir });
const remote = (args: string[]) => runTpa(args, { home: home.dir, env: { TPA_PROFILE: 'sandbox' } });
type Side = typeof local;

beforeEach(async () => {
  home = tempDir();
  // Friday 10 April 2026 on the stored engine clock, which the server and in-process commands share.
  expect((await local(['local', 'clock', 'set', '2026-04-10T10:00:00Z'])).code).toBe(0);
  server = await serve(home.dir);
  await login(home.dir, server.url);
});
afterEach(async () => {
  await server.stop();
  home.remove();
});

/** A claim from the template (its arguments given) submitted and polled on one side; the claim response. */
async function adjudicated(side: Side, template: string[], edit?: (claim: Body) => void): Promise<{ id: string; response: Body }> {
  const file = await claimFile(side, home.dir, { template, ...(edit ? { edit } : {}) });
  const ack = await side(['claim', 'submit', file, '--again', '-o', 'json']);
  expect(ack.code, ack.stderr).toBe(0);
  const { submission_id, external_claim_id } = ack.json<Body>();
  const polled = await side(['claim', 'poll', submission_id, '--wait', '-o', 'json']);
  expect(polled.code, polled.stderr).toBe(0);
  return { id: external_claim_id, response: polled.json<Body>() };
}

describe('ratesheet finalize on the day of services already claimed', () => {
  for (const [name, side] of [
    ['in-process', local],
    ['over local serve', remote],
  ] as const) {
    it(`prices two identical colonoscopies of the finalize day by one rate (${name})`, async () => {
      const colonoscopy = (patient: string) => [
        '--type',
        'professional',
        '--npi',
        '1045782368',
        '--cpt',
        '45378',
        '--patient',
        patient,
        '--service-date',
        '2026-04-10',
      ];
      const before = await adjudicated(side, colonoscopy('MBR-1003'));
      expect((await side(['ratesheet', 'init', 'BLD-1002'])).code).toBe(0);
      expect((await side(['ratesheet', 'add', 'BLD-1002', '--ssp', 'GI-0101', '--rate-type', 'CASE_RATE', '--rate', '1000'])).code).toBe(0);
      const done = await side(['ratesheet', 'finalize', 'BLD-1002', '--yes', '-o', 'json']);
      expect(done.code, done.stderr).toBe(0);
      expect(done.json()).toMatchObject({ status: 'FINALIZED', effective_date: '2026-04-11' });
      const after = await adjudicated(side, colonoscopy('MBR-1004'));
      expect([before.response.adjudication.allowed_amount, after.response.adjudication.allowed_amount]).toEqual([425, 425]);
    });
  }
});
