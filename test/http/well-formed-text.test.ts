// Over `tpa local serve`: a lone surrogate in a JSON body is refused as in-process, and so are bytes
// that are not UTF-8 in a body or in a query's percent-escapes, which Node would otherwise read as
// U+FFFD without a word. Nothing of a refused request is written; well-formed text is kept exactly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { runTpa } from '../helpers/cli.js';
import { createKey, type ServedHome, useServedHome } from '../helpers/server.js';

type Body = Record<string, any>;
let served: ServedHome;
useServedHome(beforeAll, afterAll, (s) => {
  served = s;
});

async function send(method: string, path: string, body?: string | Uint8Array, key = served.key): Promise<{ status: number; body: Body }> {
  const r = await fetch(`${served.server.url}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body,
  });
  return { status: r.status, body: (await r.json()) as Body };
}

async function adjudicated(patient: string): Promise<{ id: string; amount: number }> {
  const claim = claimTemplate({ type: 'institutional', patient, serviceDate: new Date().toISOString().slice(0, 10) });
  const ack = await send('POST', '/tpa-api/v1/claims/submit/', JSON.stringify(claim));
  expect(ack.status, JSON.stringify(ack.body)).toBe(201);
  const id = ack.body.external_claim_id as string;
  // No adjudication delay in tests: the first read finds it adjudicated.
  const detail = await send('GET', `/tpa-api/v1/ledger/entries/${id}/`);
  expect(detail.body.encounter.status).toBe('ADJUDICATED');
  return { id, amount: detail.body.financial_summary.payer_responsibility.total };
}

describe('text that is not well-formed Unicode, over local serve', () => {
  it('a fund release with an escaped lone surrogate in its authorization code, or with bytes that are not UTF-8, is refused 400 naming it; nothing is written', async () => {
    const { id, amount } = await adjudicated('MBR-1002');
    const escaped = await send('POST', '/tpa-api/v1/funding/approve/', `{"encounter_id":"${id}","amount":${amount},"authorization_code":"AUTH-\\ud800-0001"}`);
    expect(escaped.status).toBe(400);
    expect(escaped.body).toEqual({ errors: [{ field: 'authorization_code', message: expect.stringMatching(/not well-formed Unicode/) }] });
    // The code's bytes CESU-8 would give U+D800 (ED A0 80), and a lone 0xFF: never read as U+FFFD.
    for (const bad of [Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xff])]) {
      const bytes = Buffer.concat([Buffer.from(`{"encounter_id":"${id}",\n"amount":${amount},\n"authorization_code":"AUTH-`), bad, Buffer.from('-0001"}')]);
      const raw = await send('POST', '/tpa-api/v1/funding/approve/', bytes);
      expect(raw.status).toBe(400);
      expect(raw.body).toEqual({ errors: [{ field: '', message: expect.stringMatching(/not UTF-8 text.*at line 3$/) }] });
    }
    const detail = await send('GET', `/tpa-api/v1/ledger/entries/${id}/`);
    expect(detail.body.encounter.status).toBe('ADJUDICATED');
    expect(await send('GET', `/tpa-api/v1/settlement/${id}/`)).toMatchObject({ status: 202, body: { funding_approved: false } });
  });

  it('a query parameter whose percent-escapes are not UTF-8 is refused 400 naming the parameter', async () => {
    const r = await send('GET', '/tpa-api/v1/ledger/entries/?page_size=5&provider_npi=%ED%A0%80');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ errors: [{ field: 'provider_npi', message: expect.stringMatching(/not UTF-8 text/) }] });
    // A % that starts no escape, and an escaped U+FFFD, are text like any other.
    expect((await send('GET', '/tpa-api/v1/ledger/entries/?page_size=5&note=100%')).status).toBe(200);
  });

  it('well-formed text beyond the BMP is released over HTTP as sent, and audit verify --deep agrees', async () => {
    const { id, amount } = await adjudicated('MBR-1003');
    const released = await send('POST', '/tpa-api/v1/funding/approve/', JSON.stringify({ encounter_id: id, amount, authorization_code: 'AUTH-😀-𠀀' }));
    expect(released.status, JSON.stringify(released.body)).toBe(200);
    const deep = await runTpa(['local', 'audit', 'verify', '--deep', '-o', 'json'], { home: served.home.dir });
    expect(deep.code, deep.stderr).toBe(0);
    expect(deep.json()).toMatchObject({ whole: true, tables_agree: true });
    // The OAuth-less token route and the key routes go through the same entry: a rotated key's body too.
    const other = await createKey(served.home.dir);
    expect((await send('POST', '/tpa-api/v1/keys/rotate', '{"note":"\\udc00"}', other)).status).toBe(400);
  });
});
