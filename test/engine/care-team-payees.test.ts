// A care-team member is checked as a payee only when a line names it first (its careTeamSequence):
// one no line names (an attending physician from outside the plan) is never paid, so it never
// refuses the claim; one a line names must be a provider the plan knows.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { npiCheckDigit } from '../../src/domain/validation.js';
import { claimOf } from '../helpers/claims.js';
import { call, useEngineHome } from '../helpers/engine.js';

const home = useEngineHome(beforeEach, afterEach);
type Body = Record<string, any>;
const OUTSIDE = `199999999${npiCheckDigit('199999999')}`;

describe('care-team members who are no line’s payee', () => {
  it('an outside attending no line names is accepted; the same NPI named by a line is refused naming its entry', () => {
    const engine = home.at('2026-03-02T10:00:00Z', '0');
    const attending = claimOf({
      npi: '1234567893',
      careTeam: [
        { npi: '1045782368', role: 'primary' },
        { npi: OUTSIDE, role: 'supervisor' },
      ],
      lines: [{ code: '45378', date: '2026-03-02', careTeam: 1 }],
    });
    const ack = call(engine, 'POST', '/tpa-api/v1/claims/submit/', attending);
    expect(ack.status, JSON.stringify(ack.body)).toBe(201);
    const detail = call(engine, 'GET', `/tpa-api/v1/ledger/entries/${(ack.body as Body).external_claim_id}/`).body as Body;
    expect((detail.service_lines as Body[]).map((l) => l.provider_npi)).toEqual(['1045782368']);

    const paid = claimOf({
      npi: '1234567893',
      careTeam: [{ npi: OUTSIDE, role: 'primary' }],
      lines: [{ code: '45378', date: '2026-03-01', careTeam: 1 }],
    });
    const refused = call(engine, 'POST', '/tpa-api/v1/claims/submit/', paid);
    expect(refused.status).toBe(400);
    expect((refused.body as Body).errors).toEqual([
      { field: 'careTeam[0].provider', message: `NPI ${OUTSIDE} is not a provider known to the plan; it cannot be paid` },
    ]);
  });
});
