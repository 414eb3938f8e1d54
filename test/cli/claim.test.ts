import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTpaHome } from '../helpers/cli.js';
import { cents } from '../helpers/values.js';

const home = useTpaHome(beforeEach, afterEach);
const run = home.run;

async function template(...args: string[]): Promise<string> {
  const r = await run(['claim', 'template', ...args]);
  expect(r.code).toBe(0);
  const file = join(home.dir, `claim-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, r.stdout);
  return file;
}

describe('tpa claim', () => {
  it('template | submit --wait -o json prints an adjudicated response whose amounts obey the rule', async () => {
    const file = await template();
    const r = await run(['claim', 'submit', file, '--wait', '-o', 'json']);
    expect(r.code).toBe(0);
    const body = r.json<{ status: string; disposition: string; adjudication: Record<string, number> }>();
    expect(body).toMatchObject({ status: 'ADJUDICATED', disposition: 'APPROVED' });
    const a = body.adjudication;
    expect(cents(a.allowed_amount!)).toBe(cents(a.benefit_amount!) + cents(a.patient_responsibility!));
    expect(a.benefit_amount).toBe(320);
  });

  it('an institutional encounter with anesthesia and pathology is adjudicated line by line', async () => {
    const file = await template('--type', 'institutional');
    const claim = JSON.parse(readFileSync(file, 'utf8'));
    expect(claim.item.map((i: { revenue: { coding: { code: string }[] } }) => i.revenue.coding[0]!.code)).toEqual(['0750', '0960', '0370', '0310']);
    const r = await run(['claim', 'submit', file, '--wait', '--raw', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({
      disposition: 'APPROVED',
      adjudication: { allowed_amount: 3100, benefit_amount: 2460 },
      claim_response: { resourceType: 'ClaimResponse' },
    });
  });

  it('submit reads the claim from stdin with -', async () => {
    const r = await run(['claim', 'submit', '-', '-o', 'json'], {}, readFileSync(await template(), 'utf8'));
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ status: 'ACKNOWLEDGED' });
  });

  it('validate on a broken claim exits 2 naming each field, and submit sends nothing', async () => {
    const file = await template();
    const claim = JSON.parse(readFileSync(file, 'utf8'));
    claim.item[0].productOrService.coding[0].code = '4537';
    claim.provider = { reference: 'Organization/acme' };
    writeFileSync(file, JSON.stringify(claim));
    const v = await run(['claim', 'validate', file, '-o', 'table']);
    expect(v.code).toBe(2);
    expect(v.stdout).toBe('');
    expect(v.stderr).toContain('item[0].productOrService.coding[0].code');
    expect(v.stderr).toContain('provider.identifier');
    const s = await run(['claim', 'submit', file]);
    expect(s.code).toBe(2);
    expect(JSON.parse(s.stderr).error.details).toHaveLength(2);
    // Nothing reached the engine: its ledger is empty.
    expect((await run(['ledger', 'list'])).json()).toMatchObject({ count: 0, results: [] });
  });

  it('validate says a good claim is valid', async () => {
    const r = await run(['claim', 'validate', await template('--cpt', '45378', '43235')]);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ valid: true, type: 'professional', lines: 2, cpt_codes: ['45378', '43235'] });
  });

  it('a file that is missing, empty or not JSON is one clear error, never a stack trace', async () => {
    const empty = join(home.dir, 'empty.json');
    writeFileSync(empty, '');
    const notJson = join(home.dir, 'x.json');
    writeFileSync(notJson, '{"resourceType": "Claim",');
    for (const [file, pattern] of [
      ['missing.json', /cannot read missing\.json: no such file/],
      [empty, /claim file is empty/],
      [notJson, /not valid JSON/],
    ] as const) {
      const r = await run(['claim', 'validate', file, '-o', 'table']);
      expect(r.code, file).toBe(2);
      expect(r.stderr).toMatch(pattern);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('poll without --wait exits 7 while adjudication is still running, with the 202 body on stdout', async () => {
    const slow = { TPA_ADJUDICATION_DELAY: '1h' };
    const ack = (await run(['claim', 'submit', await template()], slow)).json<{ submission_id: string }>();
    const r = await run(['claim', 'poll', ack.submission_id], slow);
    expect(r.code).toBe(7);
    expect(r.json()).toMatchObject({ status: 'PROCESSING', estimated_completion: expect.any(String) });
  });

  it('submit --wait gives up with exit 7 when the timeout passes first', async () => {
    const r = await run(['claim', 'submit', await template(), '--wait', '--timeout', '1s'], { TPA_ADJUDICATION_DELAY: '1h' });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/still being adjudicated/);
  });

  it('poll --wait returns the adjudication of an earlier submission', async () => {
    const ack = (await run(['claim', 'submit', await template()])).json<{ submission_id: string }>();
    const r = await run(['claim', 'poll', ack.submission_id, '--wait', '-o', 'table']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Disposition\s+APPROVED/);
    expect(r.stdout).toMatch(/Benefit \(plan pays\)\s+320\.00/);
  });

  it('polling an unknown submission exits 3', async () => {
    const r = await run(['claim', 'poll', 'sub_doesnotexist']);
    expect(r.code).toBe(3);
    expect(r.json()).toMatchObject({ submission_id: 'sub_doesnotexist' });
  });

  it('resubmitting with the same --idempotency-key returns the same submission', async () => {
    const file = await template();
    const a = (await run(['claim', 'submit', file, '--idempotency-key', 'retry-1'])).json<{ submission_id: string }>();
    const b = (await run(['claim', 'submit', file, '--idempotency-key', 'retry-1'])).json<{ submission_id: string }>();
    expect(b.submission_id).toBe(a.submission_id);
  });

  it('a submission for an uncontracted code exits 3 with the NPI and codes', async () => {
    const r = await run(['claim', 'submit', await template('--cpt', '99213')]);
    expect(r.code).toBe(3);
    expect(r.json()).toMatchObject({ provider_npi: '1045782368', cpt_codes: ['99213'] });
  });
});
