// What the activity reads of a claim a corrected claim closed (docs/periods.md "What the events
// are"): the SUPERSEDED or VOIDED step of its progression is an event of its own, carrying the
// charges withdrawn, with a provider's share its own lines' charges.
import { describe, expect, it } from 'vitest';
import { entryEvents, stepKinds, type ActivityEntry } from '../../src/domain/activity.js';

const entry = (last: 'SUPERSEDED' | 'VOIDED'): ActivityEntry => ({
  encounter_id: 'enc_1',
  encounter_number: 'ENC-2026-000001',
  service_date: '2026-03-02',
  provider: { npi: '1234567893', name: 'Valley Family Clinic' },
  status_progression: [
    { status: 'SUBMITTED', timestamp: '2026-03-02T10:00:00Z' },
    { status: 'PROCESSING', timestamp: '2026-03-02T10:00:00Z' },
    { status: 'ADJUDICATED', timestamp: '2026-03-02T10:00:03Z' },
    { status: last, timestamp: '2026-03-03T09:00:00Z' },
  ],
  financial_summary: { charges: 1800, benefit_amount: 120 },
});
const all = { startMs: Number.NEGATIVE_INFINITY, endMs: Number.POSITIVE_INFINITY };

describe('the activity of a corrected claim', () => {
  it('a replaced claim ends with a superseded event, a voided one with a voided event, each carrying the charges', () => {
    expect(stepKinds(entry('SUPERSEDED').status_progression)).toEqual(['submitted', undefined, 'adjudicated', 'superseded']);
    expect(stepKinds(entry('VOIDED').status_progression)).toEqual(['submitted', undefined, 'adjudicated', 'voided']);
    for (const last of ['SUPERSEDED', 'VOIDED'] as const) {
      const events = entryEvents(entry(last), all);
      expect(events.map((e) => [e.kind, e.amountCents, e.time])).toEqual([
        ['submitted', 180000, '2026-03-02T10:00:00Z'],
        ['adjudicated', 12000, '2026-03-02T10:00:03Z'],
        [last.toLowerCase(), 180000, '2026-03-03T09:00:00Z'],
      ]);
      // A provider's share: its own lines' charges.
      const share = entryEvents(entry(last), all, { chargesCents: 50000, benefitCents: 3000, transferCents: [] });
      expect(share.at(-1)).toMatchObject({ kind: last.toLowerCase(), amountCents: 50000 });
    }
  });
});
