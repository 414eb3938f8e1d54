// Finding a processor transfer id for `settlement remit`: this machine's fund
// history names the encounter, so the ledger is not scanned; the settlement reads that remain are
// a few in flight and wait out a rate limit (client/settlement-reads.ts).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TpaClient } from '../../src/client/client.js';
import { FundHistory } from '../../src/jobs/fund-history.js';
import { findTransfer } from '../../src/jobs/remit.js';
import { readSettlements } from '../../src/client/settlement-reads.js';
import { NotFoundError } from '../../src/errors.js';
import { tempDir } from '../helpers/engine.js';

let home: ReturnType<typeof tempDir>;
beforeEach(() => {
  home = tempDir();
});
afterEach(() => home.remove());

const record = (encounterId: string, transferId: string) => ({
  encounter_id: encounterId,
  processor_transfer_id: transferId,
  status: 'COMPLETED',
  payouts: [],
});

describe('findTransfer', () => {
  it('finds a transfer id through the fund history of this machine, without reading the ledger', async () => {
    const history = FundHistory.open(home.dir);
    const id = history.begin({ profile: 'default', environment: 'local', encounter_id: 'enc_7', amount: 10, authorization_code: 'AUTH-7' });
    history.end(id, 'APPROVED', 'tr_7');
    history.close();
    const asked: string[] = [];
    const client = {
      settlement: async (encounterId: string) => {
        asked.push(`settlement ${encounterId}`);
        if (encounterId !== 'enc_7') throw new NotFoundError(`no encounter ${encounterId}`);
        return { status: 200, headers: {}, body: record('enc_7', 'tr_7') };
      },
      ledgerDetail: async (encounterId: string) => ({ status: 200, headers: {}, body: { encounter: { id: encounterId } } }),
      ledgerList: async () => {
        throw new Error('the ledger was scanned');
      },
    } as unknown as TpaClient;
    const found = await findTransfer(client, 'tr_7', undefined, home.dir);
    if (!('transfer' in found)) throw new Error('a notice, where a transfer was named');
    expect(found.transfer.processor_transfer_id).toBe('tr_7');
    expect(found.detail.encounter.id).toBe('enc_7');
    expect(asked).toEqual(['settlement tr_7', 'settlement enc_7']);
  });
});

describe('readSettlements', () => {
  it('keeps at most four reads in flight, answers in the order asked, and waits while the service says no request is left', async () => {
    let inFlight = 0;
    let most = 0;
    let resetMs = 0;
    const startedAfterReset: boolean[] = [];
    const client = {
      settlement: async (id: string) => {
        startedAfterReset.push(resetMs === 0 || Date.now() >= resetMs);
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setImmediate(r));
        inFlight--;
        // The first answer empties the window: it resets at the next whole second.
        if (id === 'enc_0') {
          const reset = Math.ceil(Date.now() / 1000);
          resetMs = reset * 1000;
          return { status: 200, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) }, body: record(id, `tr_${id}`) };
        }
        return { status: id === 'enc_3' ? 202 : 200, headers: {}, body: record(id, `tr_${id}`) };
      },
    } as unknown as TpaClient;
    const ids = Array.from({ length: 10 }, (_, i) => `enc_${i}`);
    const read = await readSettlements(client, ids, { inFlight: 1 });
    expect([...read.keys()]).toEqual(ids);
    expect(read.get('enc_3')).toBeNull();
    // One in flight: every read after the first began once the window had reset.
    expect(startedAfterReset.slice(1).every(Boolean)).toBe(true);
    resetMs = 0;
    most = 0;
    await readSettlements({ settlement: async (id: string) => client.settlement(`x${id}`) } as unknown as TpaClient, ids);
    expect(most).toBe(4);
  });
});
