// Which pended claim a claim sends again (docs/money-funding.md "The finance desk's report"): by the
// sender's claim identifier when both carry one, else by the same services; never across members
// or billing providers.
import { describe, expect, it } from 'vitest';
import { sentAgain, type ClaimIdentity } from '../../src/domain/ledger.js';

const knee: ClaimIdentity = { providerNpi: '1450827369', memberId: 'MBR-1003', lines: [{ cptCode: '27447', serviceDate: '2026-04-10' }] };

describe('a claim sent again for a pended one', () => {
  it('is the same services of the same member and billing provider, in any line order, when neither has an identifier', () => {
    expect(sentAgain(knee, { ...knee })).toBe(true);
    const two = { ...knee, lines: [...knee.lines, { cptCode: '97161', serviceDate: '2026-04-10' }] };
    expect(sentAgain(two, { ...two, lines: [...two.lines].reverse() })).toBe(true);
    expect(sentAgain(knee, two)).toBe(false);
    expect(sentAgain(knee, { ...knee, lines: [{ cptCode: '27447', serviceDate: '2026-04-11' }] })).toBe(false);
    expect(sentAgain(knee, { ...knee, memberId: 'MBR-1004' })).toBe(false);
    expect(sentAgain(knee, { ...knee, providerNpi: '1234567893' })).toBe(false);
  });

  it('is the same claim identifier (CLM01) when both carry one, whatever its lines; one without is not taken for one with', () => {
    const sent = { ...knee, patientControlNumber: 'PCN-1' };
    expect(sentAgain(sent, { ...sent, lines: [...knee.lines, { cptCode: '97161', serviceDate: '2026-04-10' }] })).toBe(true);
    expect(sentAgain(sent, { ...sent, patientControlNumber: 'PCN-2' })).toBe(false);
    expect(sentAgain(sent, knee)).toBe(false);
    expect(sentAgain(knee, sent)).toBe(false);
  });

  it('bills every service that waited for a preauthorization, CLM01 or not: one that leaves one out is another claim', () => {
    const pended = { ...knee, patientControlNumber: 'PCN-77', waiting: knee.lines };
    const evaluation = { ...knee, patientControlNumber: 'PCN-77', lines: [{ cptCode: '97161', serviceDate: '2026-04-10' }] };
    expect(sentAgain(pended, evaluation)).toBe(false);
    expect(sentAgain(pended, { ...evaluation, lines: [...knee.lines, ...evaluation.lines] })).toBe(true);
    // The knee on another date is not the service that waited.
    expect(sentAgain(pended, { ...evaluation, lines: [{ cptCode: '27447', serviceDate: '2026-04-11' }] })).toBe(false);
    expect(sentAgain({ ...knee, waiting: knee.lines }, { ...knee })).toBe(true);
  });
});
