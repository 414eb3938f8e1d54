// A dependent's claim (named by name and birth date under the subscriber's coverage) in a claim
// batch resumed past the engine's 24-hour Idempotency-Key window: found in the ledger under the
// dependent found, not sent again, and another dependent's claim of the same content is not taken
// for it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchJournal, type BatchClaim, type ClaimOutcome, runClaimBatch } from '../../src/jobs/claim-batch.js';
import { TpaClient } from '../../src/client/client.js';
import { LocalTransport } from '../../src/local/transport.js';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { tempDir } from '../helpers/engine.js';

const CLOCK = '2026-06-30T12:00:00Z';
const LATER = '2026-07-01T13:00:00Z';

let home: ReturnType<typeof tempDir>;
let transports: LocalTransport[];
beforeEach(() => {
  home = tempDir();
  transports = [];
});
afterEach(() => {
  for (const t of transports) t.close();
  home.remove();
});

type Row = Record<string, any>;

function clientAt(clock: string): TpaClient {
  const t = new LocalTransport(home.dir, { TPA_CLOCK: clock, TPA_ADJUDICATION_DELAY: '0' });
  transports.push(t);
  return new TpaClient(t);
}

/** A claim of a dependent of MBR-1006, by name and birth date (as an 837's loop 2000C converts). */
function dependentClaim(given: string, birthDate: string): Record<string, unknown> {
  const claim = claimTemplate({ type: 'professional', npi: '1045782368', cpt: ['45378'], patient: 'MBR-1006', serviceDate: '2026-05-10' }) as Record<
    string,
    any
  >;
  return {
    ...claim,
    contained: [
      ...((claim.contained as unknown[]) ?? []),
      { resourceType: 'Patient', id: 'dependent', name: [{ family: 'Rivera', given: [given] }], birthDate },
      {
        resourceType: 'Coverage',
        id: 'family',
        status: 'active',
        subscriberId: 'MBR-1006',
        beneficiary: { reference: '#dependent' },
        relationship: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/subscriber-relationship', code: 'child' }] },
        payor: [{ display: 'Acme Health Plan' }],
      },
    ],
    patient: { reference: '#dependent' },
    insurance: [{ sequence: 1, focal: true, coverage: { reference: '#family' } }],
  };
}

async function* items(claims: Record<string, unknown>[]): AsyncGenerator<BatchClaim> {
  for (const [i, c] of claims.entries()) yield { source: `claim-${i + 1}`, text: JSON.stringify(c), value: c };
}

async function batch(clock: string, path: string, claims: Record<string, unknown>[]) {
  const journal = await BatchJournal.open(path);
  const outcomes: ClaimOutcome[] = [];
  try {
    const summary = await runClaimBatch(clientAt(clock), items(claims), journal, { concurrency: 1, onOutcome: (o) => outcomes.push(o) });
    return { summary, outcomes };
  } finally {
    journal.close();
  }
}

describe('a dependent’s claim in a batch resumed past the Idempotency-Key window', () => {
  it('is found in the ledger under the dependent found, not sent again; the other dependent’s claim of the same content is sent', async () => {
    const path = join(home.dir, 'b.journal');
    const sofia = dependentClaim('Sofia', '2012-06-18');
    const first = await batch(CLOCK, path, [sofia]);
    expect(first.summary.exitCode).toBe(0);
    // The process died after the engine took the claim, before its acknowledgment was written.
    writeFileSync(
      path,
      readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => !l.includes('"type":"acknowledged"'))
        .join('\n'),
    );
    const later = await batch(LATER, path, [sofia]);
    expect(later.summary.counts).toMatchObject({ SKIPPED: 1, ACKNOWLEDGED: 0 });
    expect(later.outcomes.map((o) => o.submission_id)).toEqual(first.outcomes.map((o) => o.submission_id));
    // Her mother's claim of the same service, charge and day is another patient's: sent, not taken for hers.
    const elena = await batch(LATER, join(home.dir, 'c.journal'), [dependentClaim('Elena', '1982-09-03')]);
    expect(elena.summary.counts).toMatchObject({ ACKNOWLEDGED: 1 });
    const entries = (await clientAt(LATER).ledgerList({ limit: 100 })).body.results as unknown as Row[];
    expect(entries).toHaveLength(2);
  });
});
