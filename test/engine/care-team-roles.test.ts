// Care-team roles by the claimcareteamrole codes and the provider's contracted role. A
// role code that names none of the roles paid (primary, assist, supervisor, other) does not make a
// provider a surgeon: each line is paid in its payee's contracted role, from the plan's registry.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimOf } from '../helpers/claims.js';
import { call, useEngineHome } from '../helpers/engine.js';

const home = useEngineHome(beforeEach, afterEach);
type Body = Record<string, any>;
const ROLE = 'http://terminology.hl7.org/CodeSystem/claimcareteamrole';

describe('care-team roles', () => {
  it('primary and assist are paid in the providers’ contracted roles (anesthesia, pathology), not as SURGEON', () => {
    const claim = claimOf({
      npi: '1234567893',
      careTeam: [
        { npi: '1196382455', role: 'primary' },
        { npi: '1329475804', role: 'assist' },
      ],
      lines: [
        { code: '00811', date: '2026-03-02', careTeam: 1 },
        { code: '88305', date: '2026-03-02', careTeam: 2 },
      ],
    });
    for (const member of claim.careTeam as Body[]) member.role.coding[0].system = ROLE;
    const engine = home.at('2026-03-02T10:00:00Z', '0');
    const ack = call(engine, 'POST', '/tpa-api/v1/claims/submit/', claim);
    expect(ack.status, JSON.stringify(ack.body)).toBe(201);
    const detail = call(engine, 'GET', `/tpa-api/v1/ledger/entries/${(ack.body as Body).external_claim_id}/`).body as Body;
    expect((detail.service_lines as Body[]).map((l) => [l.provider_npi, l.provider_role])).toEqual([
      ['1196382455', 'ANESTHESIA'],
      ['1329475804', 'PATHOLOGY'],
    ]);
  });
});
