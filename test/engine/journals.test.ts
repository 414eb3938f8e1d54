// The job runners of src/client over the embedded engine on a real SQLite file, without the
// CLI: a journal has one writer at a time, a batch resumed after the engine's
// 24-hour Idempotency-Key window finds in the ledger what it sent and never makes a second
// encounter, and a payment run resumed after a transfer FAILED or was REFUNDED counts it owed.
import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { RELATED_CLAIM_RELATIONSHIP_SYSTEM } from '../../src/domain/fhir-claim.js';
import { BatchJournal, runClaimBatch, type BatchClaim, type ClaimOutcome } from '../../src/jobs/claim-batch.js';
import { TpaClient } from '../../src/client/client.js';
import { withTransfers, type ApprovalRecord } from '../../src/jobs/fund-history.js';
import { lockHolderPath } from '../../src/jobs/journal-lock.js';
import { LocalTransport } from '../../src/local/transport.js';
import { executeRun, planRun, RunJournal, selectEncounters, type ApprovalOutcome } from '../../src/jobs/payment-run.js';
import { Engine } from '../../src/engine/engine.js';
import { tempDir } from '../helpers/engine.js';

const CLOCK = '2026-06-30T12:00:00Z';
/** The key that seals the payment runs of these tests (the CLI keeps the user's in the credential store). */
const SEAL_KEY = Buffer.alloc(32, 7);
/** 25 hours on: the engine no longer replays the Idempotency-Keys of CLOCK. */
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

/** A client on the engine of the test's data dir, its clock at `clock`. */
function clientAt(clock: string): TpaClient {
  const t = new LocalTransport(home.dir, { TPA_CLOCK: clock, TPA_ADJUDICATION_DELAY: '0' });
  transports.push(t);
  return new TpaClient(t);
}

const approvedClaim = (i: number) =>
  claimTemplate({
    type: 'professional',
    npi: '1045782368',
    cpt: [['45378', '45380'][i % 2]!],
    patient: `MBR-100${1 + (i % 4)}`,
    serviceDate: `2026-05-${String(10 + i).padStart(2, '0')}`,
  });
const pendedClaim = () => claimTemplate({ type: 'professional', npi: '1582736496', cpt: ['29881'], patient: 'MBR-1002', serviceDate: '2026-02-20' });

async function* items(claims: Record<string, unknown>[]): AsyncGenerator<BatchClaim> {
  for (const [i, c] of claims.entries()) yield { source: `claim-${i + 1}`, text: JSON.stringify(c), value: c };
}

async function batch(clock: string, journalPath: string, claims: Record<string, unknown>[]) {
  const journal = await BatchJournal.open(journalPath);
  const outcomes: ClaimOutcome[] = [];
  try {
    const summary = await runClaimBatch(clientAt(clock), items(claims), journal, { concurrency: 2, onOutcome: (o) => outcomes.push(o) });
    return { summary, outcomes };
  } finally {
    journal.close();
  }
}

async function ledger(clock: string): Promise<Row[]> {
  return (await clientAt(clock).ledgerList({ limit: 100 })).body.results as unknown as Row[];
}

describe('one journal, one writer', () => {
  it('a claim batch journal open in one run refuses a second opener (exit 4) naming the holder; free again once closed', async () => {
    const path = join(home.dir, 'b.journal');
    const first = await BatchJournal.open(path);
    await expect(BatchJournal.open(path)).rejects.toMatchObject({
      exitCode: 4,
      code: 'journal_busy',
      message: expect.stringContaining(`in use by another claim batch (pid ${process.pid}, running since `),
    });
    first.close();
    (await BatchJournal.open(path)).close();
  });

  it('a payment run journal likewise; a holder that died without letting go (its name left behind) does not hold it', async () => {
    const path = join(home.dir, 'r.journal');
    const first = await RunJournal.open(path, SEAL_KEY);
    await expect(RunJournal.open(path, SEAL_KEY)).rejects.toMatchObject({ exitCode: 4, message: expect.stringContaining('in use by another payment run') });
    first.close();
    // A run killed while it held the journal leaves its name, not its lock (the kernel let it go).
    writeFileSync(lockHolderPath(path), JSON.stringify({ pid: 999_999, host: 'elsewhere', since: '2026-01-01T00:00:00.000Z' }));
    const after = await RunJournal.open(path, SEAL_KEY);
    after.close();
  });

  it("the lock is the file's, not its name's: a path through a symlinked folder and a hard link to a journal in use are refused; a symbolic link at its name, always", async () => {
    mkdirSync(join(home.dir, 'real'));
    const path = join(home.dir, 'real', 'b.journal');
    const first = await BatchJournal.open(path);
    symlinkSync(path, join(home.dir, 'link.journal'));
    symlinkSync(join(home.dir, 'real'), join(home.dir, 'folder'));
    linkSync(path, join(home.dir, 'real', 'hard.journal'));
    for (const other of [join('folder', 'b.journal'), join('real', 'hard.journal')]) {
      await expect(BatchJournal.open(join(home.dir, other)), other).rejects.toMatchObject({
        exitCode: 4,
        code: 'journal_busy',
        message: expect.stringContaining(`in use by another claim batch (pid ${process.pid}, running since `),
      });
    }
    first.close();
    (await BatchJournal.open(join(home.dir, 'folder', 'b.journal'))).close();
    // A journal is never opened through a symbolic link at its name, in use or not.
    await expect(BatchJournal.open(join(home.dir, 'link.journal'))).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringContaining('it is a symbolic link, and tpa never writes a journal through one'),
    });
  });
});

describe('a batch resumed past the Idempotency-Key window', () => {
  it('claims sent whose answers were never recorded are found in the ledger 25 hours later, not sent again', async () => {
    const path = join(home.dir, 'b.journal');
    const claims = [approvedClaim(0), pendedClaim(), approvedClaim(1)];
    const first = await batch(CLOCK, path, claims);
    expect(first.summary.exitCode).toBe(0);
    // The process died after the engine took each claim, before the acknowledgments were written.
    writeFileSync(
      path,
      readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => !l.includes('"type":"acknowledged"'))
        .join('\n'),
    );
    const later = await batch(LATER, path, claims);
    expect(later.summary.exitCode).toBe(0);
    expect(later.summary.counts).toMatchObject({ SKIPPED: 3, ACKNOWLEDGED: 0 });
    expect(later.outcomes.map((o) => o.submission_id)).toEqual(first.outcomes.map((o) => o.submission_id));
    const entries = await ledger(LATER);
    expect(entries).toHaveLength(3);
    expect(entries.map((e) => e.status).sort()).toEqual(['ADJUDICATED', 'ADJUDICATED', 'PENDED']);
  });

  it('the same content twice in a batch, one of them sent before: one found in the ledger, the other sent now', async () => {
    const path = join(home.dir, 'twice.journal');
    const same = pendedClaim();
    const first = await batch(CLOCK, path, [same]);
    expect(first.summary.counts.ACKNOWLEDGED).toBe(1);
    writeFileSync(
      path,
      readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => !l.includes('"type":"acknowledged"'))
        .join('\n'),
    );
    const later = await batch(LATER, path, [same, same]);
    expect(later.outcomes.map((o) => o.status).sort()).toEqual(['ACKNOWLEDGED', 'SKIPPED']);
    expect(await ledger(LATER)).toHaveLength(2);
  });
});

describe('a claim whose answer was lost is found in the ledger only as itself', () => {
  /** A batch whose claim submissions the engine never gets (TPA_FAULT drop): sent, unanswered. */
  async function lost(journalPath: string, claims: Record<string, unknown>[]) {
    const t = new LocalTransport(home.dir, { TPA_CLOCK: CLOCK, TPA_ADJUDICATION_DELAY: '0', TPA_FAULT: 'drop:/claims/submit/' });
    transports.push(t);
    const journal = await BatchJournal.open(journalPath);
    try {
      await runClaimBatch(new TpaClient(t), items(claims), journal, { concurrency: 1, onOutcome: () => undefined });
    } finally {
      journal.close();
    }
  }
  const twoLines = (second: string): Row => {
    const c = claimTemplate({ type: 'professional', npi: '1045782368', cpt: ['45378', '45380'], patient: 'MBR-1001', serviceDate: '2026-05-10' }) as Row;
    c.item[1].productOrService.coding[0].code = second;
    return c;
  };
  const correcting = (prior: string, kind: 'replacement' | 'void', base: Row): Row => ({
    ...base,
    ...(kind === 'void' ? { status: 'cancelled' } : {}),
    related: [{ claim: { identifier: { value: prior } }, relationship: { coding: [{ system: RELATED_CLAIM_RELATIONSHIP_SYSTEM, code: 'prior' }] } }],
  });

  it('one of the same first code, charges, member and day but another second line is not taken for it: it is sent', async () => {
    const x = await batch(CLOCK, join(home.dir, 'x.journal'), [twoLines('45380')]);
    expect(x.summary.counts.ACKNOWLEDGED).toBe(1);
    const path = join(home.dir, 'y.journal');
    await lost(path, [twoLines('45385')]);
    expect(await ledger(CLOCK)).toHaveLength(1);
    const y = await batch(LATER, path, [twoLines('45385')]);
    expect(y.outcomes.map((o) => o.status)).toEqual(['ACKNOWLEDGED']);
    expect(y.outcomes[0]!.external_claim_id).not.toBe(x.outcomes[0]!.external_claim_id);
    expect(await ledger(LATER)).toHaveLength(2);
  });

  it('nor for one that differs only in a line’s modifier: it is sent', async () => {
    const withModifier = twoLines('45380');
    withModifier.item[1].modifier = [{ coding: [{ system: 'http://www.ama-assn.org/go/cpt', code: '59' }] }];
    const x = await batch(CLOCK, join(home.dir, 'x.journal'), [withModifier]);
    expect(x.summary.counts.ACKNOWLEDGED).toBe(1);
    const path = join(home.dir, 'y.journal');
    await lost(path, [twoLines('45380')]);
    const y = await batch(LATER, path, [twoLines('45380')]);
    expect(y.outcomes.map((o) => o.status)).toEqual(['ACKNOWLEDGED']);
    expect(await ledger(LATER)).toHaveLength(2);
  });

  it('nor for one whose second line is on another day: it is sent', async () => {
    const onDays = (second: string): Row => {
      const c = twoLines('45380');
      c.item[0].servicedDate = '2026-05-09';
      c.item[1].servicedDate = second;
      return c;
    };
    const x = await batch(CLOCK, join(home.dir, 'x.journal'), [onDays('2026-05-10')]);
    expect(x.summary.counts.ACKNOWLEDGED, JSON.stringify(x.outcomes)).toBe(1);
    const path = join(home.dir, 'y.journal');
    await lost(path, [onDays('2026-05-09')]);
    const y = await batch(LATER, path, [onDays('2026-05-09')]);
    expect(y.outcomes.map((o) => o.status)).toEqual(['ACKNOWLEDGED']);
    expect(await ledger(LATER)).toHaveLength(2);
  });

  it('a lost replacement is not taken for a denied duplicate of the claim it replaces: it is sent, and that claim ends SUPERSEDED', async () => {
    const x = await batch(CLOCK, join(home.dir, 'x.journal'), [twoLines('45380')]);
    const xId = x.outcomes[0]!.external_claim_id!;
    const again = await batch(CLOCK, join(home.dir, 'again.journal'), [twoLines('45380')]);
    expect(again.outcomes[0]!.external_claim_id).not.toBe(xId);
    const path = join(home.dir, 'fix.journal');
    const replacement = [correcting(xId, 'replacement', twoLines('45380'))];
    await lost(path, replacement);
    const resumed = await batch(LATER, path, replacement);
    expect(resumed.outcomes.map((o) => o.status)).toEqual(['ACKNOWLEDGED']);
    const byId = new Map((await ledger(LATER)).map((e) => [e.encounter_id as string, e.status as string]));
    expect(byId.get(xId)).toBe('SUPERSEDED');
    expect(byId.size).toBe(3);
  });

  it('a void whose answer was lost is not taken for the claim it voids: it is sent, and that claim ends VOIDED; a replacement likewise makes its own encounter', async () => {
    const x = await batch(CLOCK, join(home.dir, 'x.journal'), [twoLines('45380'), approvedClaim(3)]);
    const [xId, otherId] = x.outcomes.map((o) => o.external_claim_id!);
    const path = join(home.dir, 'fix.journal');
    const corrections = [correcting(xId!, 'void', twoLines('45380')), correcting(otherId!, 'replacement', approvedClaim(3))];
    await lost(path, corrections);
    const again = await batch(LATER, path, corrections);
    expect(again.outcomes.map((o) => o.status).sort()).toEqual(['ACKNOWLEDGED', 'ACKNOWLEDGED']);
    const byId = new Map((await ledger(LATER)).map((e) => [e.encounter_id as string, e.status as string]));
    expect(byId.get(xId!)).toBe('VOIDED');
    expect(byId.get(otherId!)).toBe('SUPERSEDED');
    expect(byId.size).toBe(3);
  });

  it('a claim sent again after its twin was voided, its answer lost, is not taken for the voided one: it is sent', async () => {
    const x = await batch(CLOCK, join(home.dir, 'x.journal'), [twoLines('45380')]);
    const xId = x.outcomes[0]!.external_claim_id!;
    expect((await batch(CLOCK, join(home.dir, 'void.journal'), [correcting(xId, 'void', twoLines('45380'))])).summary.counts.ACKNOWLEDGED).toBe(1);
    const path = join(home.dir, 'again.journal');
    await lost(path, [twoLines('45380')]);
    const again = await batch(LATER, path, [twoLines('45380')]);
    expect(again.outcomes.map((o) => o.status)).toEqual(['ACKNOWLEDGED']);
    expect(again.outcomes[0]!.external_claim_id).not.toBe(xId);
    expect((await ledger(LATER)).map((e) => e.status).sort()).toEqual(['ADJUDICATED', 'VOIDED']);
  });

  it('a void whose answer was lost after the engine took it is found: the claim it names is VOIDED, nothing sent again', async () => {
    const x = await batch(CLOCK, join(home.dir, 'x.journal'), [twoLines('45380')]);
    const xId = x.outcomes[0]!.external_claim_id!;
    const path = join(home.dir, 'void.journal');
    const voiding = [correcting(xId, 'void', twoLines('45380'))];
    expect((await batch(CLOCK, path, voiding)).summary.counts.ACKNOWLEDGED).toBe(1);
    writeFileSync(
      path,
      readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => !l.includes('"type":"acknowledged"'))
        .join('\n'),
    );
    const again = await batch(LATER, path, voiding);
    expect(again.outcomes).toEqual([expect.objectContaining({ status: 'SKIPPED', external_claim_id: xId })]);
  });
});

describe('a payment run resumed after its transfer ended', () => {
  async function fundedRun(prefix: string, claims: Record<string, unknown>[]) {
    await batch(CLOCK, join(home.dir, `${prefix}.claims`), claims);
    const client = clientAt(CLOCK);
    const plan = planRun(await selectEncounters(client, {}, 1), {}, prefix);
    const path = join(home.dir, `${prefix}.journal`);
    const journal = await RunJournal.open(path, SEAL_KEY);
    journal.confirm(plan);
    const run = await executeRun(client, journal, { onOutcome: () => undefined });
    journal.close();
    expect(run.exitCode).toBe(0);
    return { plan, path, approved: run.outcomes[0]! };
  }

  async function resume(clock: string, path: string) {
    const journal = await RunJournal.open(path, SEAL_KEY);
    const outcomes: ApprovalOutcome[] = [];
    try {
      return { ...(await executeRun(clientAt(clock), journal, { onOutcome: (o) => outcomes.push(o) })), outcomes };
    } finally {
      journal.close();
    }
  }

  it('a transfer FAILED since: OWED, nothing approved, exit 4, and no second approval sent', async () => {
    const { plan, path, approved } = await fundedRun('AUTH-F', [approvedClaim(2)]);
    const engine = Engine.open({ dataDir: home.dir, env: { TPA_CLOCK: CLOCK } });
    engine.simulate('settlement-failure', approved.encounter_id);
    engine.close();
    const r = await resume(CLOCK, path);
    expect(r.exitCode).toBe(4);
    expect(r.approvedCents).toBe(0);
    expect(r.owedCents).toBe(plan.total_cents);
    expect(r.outcomes).toEqual([expect.objectContaining({ status: 'OWED', message: expect.stringMatching(/FAILED/) })]);
    const detail = (await clientAt(CLOCK).ledgerDetail(approved.encounter_id)).body;
    expect(detail.entries.filter((e) => e.type === 'FUNDING_APPROVED')).toHaveLength(1);
    // Owed again, so selectable by a new run (which asks its own confirmation).
    expect((await selectEncounters(clientAt(CLOCK), {}, undefined)).map((i) => i.encounter_id)).toContain(approved.encounter_id);
  });

  it('the history of approvals reads what became of each transfer: FAILED since is OWED, not APPROVED', async () => {
    const { approved } = await fundedRun('AUTH-H', [approvedClaim(2)]);
    const record = (profile: string): ApprovalRecord => ({
      id: `h-${profile}`,
      at: CLOCK,
      profile,
      environment: 'local',
      encounter_id: approved.encounter_id,
      amount: 1,
      authorization_code: approved.authorization_code,
      outcome: 'APPROVED',
      processor_transfer_id: approved.processor_transfer_id,
      message: null,
    });
    const connect = async () => clientAt(CLOCK);
    const before = await withTransfers(connect, [record('local')], 'local', () => undefined);
    expect(before).toEqual([expect.objectContaining({ outcome: 'APPROVED', transfer_status: 'INITIATED' })]);
    const engine = Engine.open({ dataDir: home.dir, env: { TPA_CLOCK: CLOCK } });
    engine.simulate('settlement-failure', approved.encounter_id);
    engine.close();
    const after = await withTransfers(connect, [record('local'), record('other')], 'local', () => undefined);
    expect(after).toEqual([
      expect.objectContaining({ outcome: 'OWED', transfer_status: 'FAILED', message: expect.stringMatching(/FAILED.*owed again/) }),
      // Another profile's approval is not read with this client: not shown as checked.
      expect.objectContaining({ outcome: 'APPROVED', transfer_status: null, message: expect.stringContaining('not checked') }),
    ]);
  });

  it('a transfer REFUNDED since: OWED likewise', async () => {
    const { path, approved } = await fundedRun('AUTH-R', [approvedClaim(2)]);
    const arrived = '2026-07-06T12:00:00Z';
    const engine = Engine.open({ dataDir: home.dir, env: { TPA_CLOCK: arrived } });
    engine.simulate('refund', approved.encounter_id);
    engine.close();
    const r = await resume(arrived, path);
    expect(r.exitCode).toBe(4);
    expect(r.approvedCents).toBe(0);
    expect(r.outcomes).toEqual([expect.objectContaining({ status: 'OWED', message: expect.stringMatching(/REFUNDED/) })]);
  });
});
