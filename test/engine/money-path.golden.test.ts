// Every answer of the engine along realistic money paths, compared word for word with answers
// reviewed by hand when written (money-path.golden.json): claims of both types, pended, denied and
// refused ones, the ledger list with its filters and pages, ledger details, the claim response
// with its FHIR ClaimResponse, settlement before and after funding, a failed transfer approved
// again, a refund, an AEOB variance. Ids are numbered in order of appearance, so the relations
// between them are checked too; times come from the engine clock.
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import type { Engine } from '../../src/engine/engine.js';
import { call, useEngineHome } from '../helpers/engine.js';

const GOLDEN = new URL('./money-path.golden.json', import.meta.url);
const home = useEngineHome(beforeEach, afterEach);

/** Replaces each generated id by its kind and order of appearance: enc#1, tr#2, … */
function normalize(value: unknown): unknown {
  const seen = new Map<string, string>();
  const text = JSON.stringify(value).replace(
    /\b(sub|enc|tr|stl|po|led|rs|rsi|crr|key|req|re|tok)_[0-9a-f]{20}\b|\b(cr|sub|enc)-[0-9a-f]{20}\b/g,
    (id, a: string | undefined, b: string | undefined) => {
      if (!seen.has(id)) seen.set(id, `${a ?? b}#${seen.size + 1}`);
      return seen.get(id)!;
    },
  );
  return JSON.parse(text);
}

function record(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const at = (clock: string): Engine => home.at(clock, '3s');
  const say = (name: string, engine: Engine, method: string, path: string, body?: unknown) => {
    const r = call(engine, method, path, body);
    out[name] = { status: r.status, body: r.body };
    return r.body as Record<string, any>;
  };
  const T = '2026-03-02T10:00:00Z';
  const LATER = '2026-03-02T10:01:00Z';
  // Each claim four seconds after the last, so that lists sorted by time have no ties and each is
  // submitted after the last one's adjudication (3 s) is recorded: the engine never records a time
  // before one it recorded (docs/local.md "The engine clock").
  let second = 0;
  const submit = (name: string, claim: unknown) =>
    say(name, at(`2026-03-02T10:00:${String(4 * second++).padStart(2, '0')}Z`), 'POST', '/tpa-api/v1/claims/submit/', claim);

  const inst = submit('submit institutional', claimTemplate({ type: 'institutional', serviceDate: '2026-03-02' }));
  say('response before it is ready', at(T), 'GET', `/tpa-api/v1/claims/${inst.submission_id}/response/`);
  say('response institutional, raw', at(LATER), 'GET', `/tpa-api/v1/claims/${inst.submission_id}/response/?include_raw_response=true`);
  const prof = submit(
    'submit professional MBR-1002',
    claimTemplate({ type: 'professional', patient: 'MBR-1002', serviceDate: '2026-03-01', cpt: ['45378', '43235'] }),
  );
  say('response professional', at(LATER), 'GET', `/tpa-api/v1/claims/${prof.submission_id}/response/`);
  const dup = submit('submit duplicate', claimTemplate({ type: 'professional', patient: 'MBR-1002', serviceDate: '2026-03-01', cpt: ['45378', '43235'] }));
  say('response duplicate', at(LATER), 'GET', `/tpa-api/v1/claims/${dup.submission_id}/response/`);
  const pend = submit('submit pended', claimTemplate({ type: 'professional', npi: '1582736496', cpt: ['29881'], serviceDate: '2026-03-02' }));
  say('response pended', at(LATER), 'GET', `/tpa-api/v1/claims/${pend.submission_id}/response/`);
  submit('submit without a contract', claimTemplate({ type: 'professional', npi: '1859362703', serviceDate: '2026-03-02' }));
  submit('submit for an unknown member', claimTemplate({ type: 'professional', patient: 'MBR-9999', serviceDate: '2026-03-02' }));
  say('response unknown', at(LATER), 'GET', '/tpa-api/v1/claims/sub_00000000000000000000/response/');

  const L = '/tpa-api/v1/ledger/entries/';
  say('ledger list', at(LATER), 'GET', L);
  say('ledger page 2 of 1 each', at(LATER), 'GET', `${L}?limit=1&offset=1`);
  say('ledger by status', at(LATER), 'GET', `${L}?status=DENIED`);
  say('ledger by provider', at(LATER), 'GET', `${L}?provider_npi=1234567893`);
  say('ledger by dates', at(LATER), 'GET', `${L}?start_date=2026-03-02&end_date=2026-03-02`);
  say('ledger filters refused', at(LATER), 'GET', `${L}?start_date=2026-03-05&end_date=2026-03-01&provider_npi=123&status=PAID&limit=0&offset=-1`);
  say('ledger detail institutional', at(LATER), 'GET', `${L}${inst.external_claim_id}/`);
  say('ledger detail duplicate', at(LATER), 'GET', `${L}${dup.external_claim_id}/`);
  say('ledger detail unknown', at(LATER), 'GET', `${L}enc_00000000000000000000/`);

  const S = (id: string) => `/tpa-api/v1/settlement/${id}/`;
  say('settlement before funding', at(LATER), 'GET', S(inst.external_claim_id));
  say('settlement of a denied encounter', at(LATER), 'GET', S(dup.external_claim_id));
  say('fund institutional', at(LATER), 'POST', '/tpa-api/v1/funding/approve/', {
    encounter_id: inst.external_claim_id,
    amount: 2460,
    authorization_code: 'AUTH-G-1',
  });
  say('settlement initiated', at(LATER), 'GET', S(inst.external_claim_id));
  say('fund professional', at(LATER), 'POST', '/tpa-api/v1/funding/approve/', {
    encounter_id: prof.external_claim_id,
    amount: (say('p', at(LATER), 'GET', `/tpa-api/v1/claims/${prof.submission_id}/response/`) as any).adjudication.benefit_amount,
    authorization_code: 'AUTH-G-2',
  });
  out['simulate failure'] = at('2026-03-02T11:00:00Z').simulate('settlement-failure', prof.external_claim_id);
  say('settlement failed', at('2026-03-02T11:00:00Z'), 'GET', S(prof.external_claim_id));
  say('fund again, same code', at('2026-03-02T11:00:00Z'), 'POST', '/tpa-api/v1/funding/approve/', {
    encounter_id: prof.external_claim_id,
    amount: (out.p as any).body.adjudication.benefit_amount,
    authorization_code: 'AUTH-G-2',
  });
  say('fund again, new code', at('2026-03-02T11:00:00Z'), 'POST', '/tpa-api/v1/funding/approve/', {
    encounter_id: prof.external_claim_id,
    amount: (out.p as any).body.adjudication.benefit_amount,
    authorization_code: 'AUTH-G-3',
  });
  say('settlement after a second transfer', at('2026-03-02T11:00:00Z'), 'GET', S(prof.external_claim_id));
  say('ledger detail after a failed transfer', at('2026-03-02T11:00:00Z'), 'GET', `${L}${prof.external_claim_id}/`);
  // The institutional claim's transfer arrives on the 4th, after the professional one's failure on the 2nd.
  say('settlement completed', at('2026-03-04T10:00:00Z'), 'GET', S(inst.external_claim_id));
  say('ledger detail funded', at('2026-03-04T10:00:00Z'), 'GET', `${L}${inst.external_claim_id}/`);
  out['simulate variance'] = at('2026-03-04T10:00:00Z').simulate('aeob-variance', inst.external_claim_id);
  say('settlement with a variance', at('2026-03-04T10:00:00Z'), 'GET', S(inst.external_claim_id));
  out['simulate refund'] = at('2026-03-05T10:00:00Z').simulate('refund', inst.external_claim_id);
  say('settlement refunded', at('2026-03-05T10:00:00Z'), 'GET', S(inst.external_claim_id));

  say('ledger list at the end', at('2026-03-05T10:00:00Z'), 'GET', L);
  return normalize(out) as Record<string, unknown>;
}

describe('the engine along the money paths', () => {
  it('answers as reviewed, to the cent and to the word', () => {
    const answers = record();
    // After a deliberate change of answers: TPA_WRITE_GOLDEN=1 rewrites the file, to be reviewed in the diff.
    if (process.env.TPA_WRITE_GOLDEN === '1') writeFileSync(GOLDEN, `${JSON.stringify(answers, null, 1)}\n`);
    const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(answers)).toEqual(Object.keys(golden));
    for (const key of Object.keys(golden)) expect(answers[key], key).toEqual(golden[key]);
  });
});
