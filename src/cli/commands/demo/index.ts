// tpa demo: the whole lifecycle, narrated, on a scratch copy of the embedded engine: fixtures, blind
// and full lookup, a multi-provider encounter submitted and adjudicated, the fund release with its
// review, the settlement arriving a business day later on the engine clock, the reconciled ledger,
// then a batch of claims and a payment run. Every amount is checked to the cent on the way.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SettlementRecord } from '../../../client/types.js';
import { formatCentsGrouped, jsonNumberToCents } from '../../../domain/money.js';
import { EXIT, TpaError } from '../../../errors.js';
import type { CommandOutput, TableTools } from '../../../render/output.js';
import { wrapProse } from '../../../render/text.js';
import { claimTemplate } from '../../../domain/claim-template.js';
import type { Context } from '../../context.js';
import { terminalWidth } from '../../io.js';
import { verb, type Entry } from '../../verb.js';
import { reviewPayouts } from '../fund/review.js';

export const demo = verb({
  name: 'demo',
  description: 'the whole lifecycle on a scratch embedded engine, narrated step by step',
  examples: ['tpa demo', 'tpa demo -o json | jq .adjudication'],
  // The scratch engine's journals are its own, in its scratch folder, removed at the end: plain,
  // whatever the user's data directory is (an encrypted one's key is not needed).
  run: async (ctx) => {
    const { withJournalSealing } = await import('../../../jobs/journal-seal.js');
    return withJournalSealing({ kind: 'plain' }, () => lifecycle(ctx));
  },
});

export const verbs: readonly Entry[] = [demo];

const FACILITY = { npi: '1234567893', group: 'GRP-1001', name: 'Riverside Surgery Center' };
const cents = (v: number | null | undefined) => (v === null || v === undefined ? NaN : (jsonNumberToCents(v) ?? NaN));

type Client = import('../../../client/client.js').TpaClient;
type ScratchEngine = Awaited<ReturnType<import('../../../local/transport.js').LocalTransport['open']>>;

/** What every step of the demo uses: the scratch engine and its client, and the narration. */
interface Demo {
  ctx: Context;
  tools: TableTools;
  client: Client;
  engine: ScratchEngine;
  dir: string;
  today: string;
  narrate: boolean;
  say(text?: string): void;
  step(n: number, title: string): void;
  /** Says that a rule holds; throws when it does not. */
  check(what: string, holds: boolean): void;
}

async function lifecycle(ctx: Context): Promise<CommandOutput | void> {
  const [{ TpaClient }, { LocalTransport }, tools] = await Promise.all([
    import('../../../client/client.js'),
    import('../../../local/transport.js'),
    import('../../../render/output.js').then((m) => m.tableTools(ctx.color, terminalWidth(ctx.io.stdout))),
  ]);
  const narrate = ctx.format === 'table';
  // Prose wrapped at spaces to the terminal's width, under its own indent (render/text.ts); piped, as it is.
  const say = (text = '') => narrate && ctx.io.stdout.write(`${wrapProse(text, tools.width)}\n`);
  const dir = mkdtempSync(join(tmpdir(), 'tpa-demo-'));
  // The scratch engine keeps the caller's settings (e.g. TPA_ADJUDICATION_DELAY) but its own clock.
  const env = { ...ctx.io.env, TPA_CLOCK: undefined };
  const transport = new LocalTransport(dir, env);
  const client = new TpaClient(transport, { debug: ctx.debug ? (l) => ctx.io.stderr.write(`[debug] ${l}\n`) : undefined });
  try {
    const engine = await transport.open();
    const demo: Demo = {
      ctx,
      tools,
      client,
      engine,
      dir,
      today: engine.clock().now.slice(0, 10),
      narrate,
      say,
      step: (n, title) => say(`\n${tools.c.bold(`${n}. ${title}`)}`),
      check: (what, holds) => {
        say(`   ${holds ? tools.c.green('✓') : tools.c.red('✗')} ${what}`);
        if (!holds) throw new TpaError(EXIT.INTERNAL, 'rule_broken', `the demo found a broken rule: ${what}`);
      },
    };
    say(tools.c.bold('tpa demo: an encounter from contract lookup to reconciled settlement, on the embedded engine'));
    say(`A scratch engine in ${dir}, seeded like a fresh one; your own local data is not touched.`);
    seededFixtures(demo);
    const lookups = await lookUp(demo);
    const claim = await submitAndAdjudicate(demo);
    const approved = await approveRelease(demo, claim.encounterId, claim.adj);
    const settlement = await settleNextBusinessDay(demo, claim.encounterId, approved.estimated_arrival);
    const ledger = await showLedger(demo, claim.encounterId);
    const batch = await submitBatch(demo);
    const paymentRun = await runPayments(demo);
    nextSteps(demo);
    if (narrate) return undefined;
    return {
      data: {
        blind_lookup: lookups.blind,
        full_lookup: lookups.full,
        acknowledgment: claim.ack,
        claim_response: claim.result,
        adjudication: claim.adj,
        funding: approved,
        settlement,
        ledger,
        batch,
        payment_run: paymentRun,
        rules_hold: true,
      },
    };
  } finally {
    transport.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function seededFixtures({ step, say, engine }: Demo): void {
  step(1, 'Seeded fixtures');
  const fixtures = engine.fixtures() as Record<string, unknown[]>;
  say(`${fixtures.providers!.length} providers, ${fixtures.contracts!.length} contracts, ${fixtures.members!.length} members (see \`tpa local fixtures\`).`);
  say(`${FACILITY.name} (NPI ${FACILITY.npi}, group ${FACILITY.group}) bills a colonoscopy with biopsy (CPT 45380) for member MBR-1003,`);
  say('with the surgeon, the anesthesia group and the pathology lab on the care team.');
}

async function lookUp({ step, say, client, tools }: Demo) {
  step(2, 'Blind lookup: is there a contract? (no pricing is revealed)');
  say(`$ tpa lookup blind --npi ${FACILITY.npi} --group ${FACILITY.group} --cpt 45380 00811 88305`);
  const blind = await client.blindLookup({ npi: FACILITY.npi, group_id: FACILITY.group, cpt_codes: ['45380', '00811', '88305'] });
  say(`→ ${blind.body.message}: ${blind.body.contract_id}`);

  step(3, 'Full lookup: pricing and terms for the procedure');
  say(`$ tpa lookup full ${blind.body.contract_id} --npi ${FACILITY.npi} --group ${FACILITY.group} --cpt 45380`);
  const full = await client.fullLookup({ contract_id: blind.body.contract_id!, npi: FACILITY.npi, group_id: FACILITY.group, cpt_code: '45380' });
  say(`→ contract ${full.body.contract_number}, ${full.body.rate_type} ${tools.amount(full.body.negotiated_rate)}, ${full.body.network_tier}`);
  return { blind: blind.body, full: full.body };
}

async function submitAndAdjudicate({ step, say, check, client, tools, today }: Demo) {
  const { pollClaim } = await import('../../../client/polling.js');
  step(4, 'Submit the encounter as a FHIR R4 institutional claim');
  say('$ tpa claim template --type institutional > encounter.json && tpa claim submit encounter.json');
  const claim = claimTemplate({ type: 'institutional', npi: FACILITY.npi, cpt: ['45380', '00811', '88305'], patient: 'MBR-1003', serviceDate: today });
  const ack = await client.submitClaim(JSON.stringify(claim));
  const encounterId = ack.body.external_claim_id;
  say(`→ ${ack.body.status}: submission ${ack.body.submission_id}, encounter ${encounterId}`);

  step(5, 'Poll for the adjudication (asynchronous, as the service is)');
  say(`$ tpa claim poll ${ack.body.submission_id} --wait`);
  const result = await pollClaim(client, ack.body.submission_id, {
    timeoutMs: 60_000,
    firstDelayMs: 2000,
    onWait: ({ attempt, waitMs }) => say(`   … ${attempt === 0 ? 'first check' : 'not ready yet, checking again'} in ${Math.ceil(waitMs / 1000)}s`),
  });
  const adj = result.body.adjudication!;
  say(`→ ${result.body.disposition}`);
  say(
    tools.keyValues([
      ['   Charges', tools.amount(adj.total_charges)],
      ['   Allowed (lesser of charge and contract)', tools.amount(adj.allowed_amount)],
      ['     Copay', tools.amount(adj.copay_applied)],
      ['     Deductible', tools.amount(adj.deductible_applied)],
      ['     Coinsurance', tools.amount(adj.coinsurance_applied)],
      ['   Patient responsibility', tools.amount(adj.patient_responsibility)],
      ['   Benefit (the plan pays)', tools.amount(adj.benefit_amount)],
    ]),
  );
  check(
    `allowed ${tools.amount(adj.allowed_amount)} = benefit ${tools.amount(adj.benefit_amount)} + patient responsibility ${tools.amount(adj.patient_responsibility)}`,
    cents(adj.allowed_amount) === cents(adj.benefit_amount) + cents(adj.patient_responsibility),
  );
  return { ack: ack.body, result: result.body, adj, encounterId };
}

type Adjudication = Awaited<ReturnType<typeof submitAndAdjudicate>>['adj'];

async function approveRelease({ step, say, check, client, tools, today }: Demo, encounterId: string, adj: Adjudication) {
  step(6, 'Review and approve the fund release (irreversible)');
  const detail = (await client.ledgerDetail(encounterId)).body;
  const payouts = reviewPayouts(detail);
  say(
    tools.table(
      ['Provider', 'Role', { header: 'Amount', align: 'right' }, { header: 'Fee (2.2% + 0.30)', align: 'right' }, { header: 'Net', align: 'right' }],
      payouts.map((p) => [p.providerName, p.providerRole, formatCentsGrouped(p.amountCents), formatCentsGrouped(p.feeCents), formatCentsGrouped(p.netCents)]),
    ),
  );
  const authCode = `AUTH-${today.replace(/-/g, '')}-ACME-0001`;
  say(`$ tpa fund approve ${encounterId} --amount ${formatCentsGrouped(cents(adj.benefit_amount))} --auth-code ${authCode} --yes`);
  const approved = await client.approveFunding({ encounter_id: encounterId, amount: adj.benefit_amount, authorization_code: authCode, notes: 'tpa demo' });
  say(`→ ${approved.body.status}: transfer ${approved.body.processor_transfer_id}, expected ${approved.body.estimated_arrival}`);
  check(
    `payouts add up to the benefit: ${payouts.map((p) => formatCentsGrouped(p.amountCents)).join(' + ')} = ${tools.amount(adj.benefit_amount)}`,
    payouts.reduce((s, p) => s + p.amountCents, 0) === cents(adj.benefit_amount),
  );
  const again = await client.approveFunding({ encounter_id: encounterId, amount: adj.benefit_amount, authorization_code: authCode }).then(
    () => 'approved twice',
    (err: TpaError) => err.code,
  );
  check(`a second approval is refused (${again}): the money moves once`, again === 'duplicate_approval');
  return approved.body;
}

/**
 * The transfer arrives a business day after the approval (a Friday's on Monday): the clock moves
 * by the whole days to that arrival, and the words say how many.
 */
async function settleNextBusinessDay({ step, say, check, client, engine }: Demo, encounterId: string, arrival: string) {
  const DAY_MS = 86_400_000;
  const days = Math.max(1, Math.ceil((Date.parse(arrival) - Date.parse(engine.clock().now)) / DAY_MS));
  const weekday = new Date(arrival).toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' });
  step(
    7,
    `The next business day, ${weekday} ${arrival.slice(0, 10)} (${days} day${days === 1 ? '' : 's'} later on the engine clock): the transfer arrives and is reconciled`,
  );
  say(`$ tpa local clock advance ${days}d && tpa settlement show ${encounterId}`);
  engine.advanceClock(days * DAY_MS);
  const settlement = (await client.settlement(encounterId)).body as SettlementRecord;
  say(
    `→ ${settlement.status}, AEOB ${settlement.aeob_match?.aeob_reference}: ${settlement.aeob_match?.match_status}, reconciliation ${settlement.reconciliation_status}`,
  );
  check('the settlement completed and matched the AEOB exactly', settlement.status === 'COMPLETED' && settlement.aeob_match?.match_status === 'EXACT');
  return settlement;
}

async function showLedger({ step, say, check, client, tools }: Demo, encounterId: string) {
  step(8, 'The ledger: every step of the encounter, timestamped');
  say(`$ tpa ledger show ${encounterId}`);
  const history = (await client.ledgerDetail(encounterId)).body;
  for (const e of history.entries) say(`   ${e.timestamp}  ${e.type.padEnd(20)} ${e.reference ?? ''}`);
  const f = history.financial_summary;
  check(
    `allowed = patient responsibility + payer responsibility (${tools.amount(f.allowed_amount)} = ${tools.amount(f.patient_responsibility.total)} + ${tools.amount(f.payer_responsibility.total)}), balance ${tools.amount(f.balance.running_balance)} ${f.balance.status}`,
    cents(f.allowed_amount) === cents(f.patient_responsibility.total) + cents(f.payer_responsibility.total) && f.balance.status === 'SETTLED',
  );
  return history;
}

async function submitBatch(demo: Demo) {
  const { step, say, check, client, engine, dir } = demo;
  step(9, 'A batch: a folder of claims, submitted once each and waited for');
  const folder = join(dir, 'claims');
  mkdirSync(folder);
  const day = engine.clock().now.slice(0, 10);
  const batchClaims = ['MBR-1001', 'MBR-1002', 'MBR-1003', 'MBR-1004'].flatMap((patient) =>
    ['45378', '43235'].map((cpt) => claimTemplate({ type: 'professional', npi: '1045782368', cpt: [cpt], patient, serviceDate: day })),
  );
  batchClaims.forEach((c, i) => writeFileSync(join(folder, `claim-${i + 1}.json`), JSON.stringify(c, null, 2)));
  say(`$ tpa claim submit claims/ --wait        (${batchClaims.length} files; a journal makes a rerun skip what was sent)`);
  const [{ BatchJournal, runClaimBatch }, { claimTexts }] = await Promise.all([import('../../../jobs/claim-batch.js'), import('../claim/submit-sources.js')]);
  const runBatch = async () => {
    const journal = await BatchJournal.open(join(dir, 'claims.journal'));
    try {
      return await runClaimBatch(
        client,
        claimTexts(
          [folder],
          () => process.stdin,
          () => undefined,
        ),
        journal,
        {
          concurrency: 10,
          waitTimeoutMs: 60_000,
          onOutcome: () => undefined,
          // The scratch engine's clock runs days ahead (step 7): estimated completions are on it.
          now: () => Date.parse(engine.clock().now),
        },
      );
    } finally {
      journal.close();
    }
  };
  const batch = await runBatch();
  sayBatch(demo, batch);
  check(
    `every claim acknowledged once (${batch.counts.ACKNOWLEDGED} of ${batchClaims.length})`,
    batch.counts.ACKNOWLEDGED === batchClaims.length && batch.exitCode === 0,
  );
  const rerun = await runBatch();
  check(`the same batch again sends nothing: ${rerun.counts.SKIPPED} skipped`, rerun.counts.SKIPPED === batchClaims.length && rerun.counts.ACKNOWLEDGED === 0);
  return {
    counts: batch.counts,
    dispositions: batch.dispositions,
    charges: formatCentsGrouped(batch.chargesCents),
    benefit: formatCentsGrouped(batch.benefitCents),
  };
}

type BatchResult = Awaited<ReturnType<typeof import('../../../jobs/claim-batch.js').runClaimBatch>>;

function sayBatch({ say, tools }: Demo, batch: BatchResult): void {
  say(
    `→ ${batch.counts.ACKNOWLEDGED} acknowledged; ${Object.entries(batch.dispositions)
      .map(([d, n]) => `${n} ${d}`)
      .join(', ')}`,
  );
  say(
    tools.keyValues([
      ['   Charges', formatCentsGrouped(batch.chargesCents)],
      ['   Allowed', formatCentsGrouped(batch.allowedCents)],
      ['   Benefit', formatCentsGrouped(batch.benefitCents)],
    ]),
  );
}

async function runPayments({ step, say, check, client, today, dir }: Demo) {
  step(10, 'A payment run: every adjudicated, unfunded encounter, reviewed and approved once each');
  const { executeRun, planRun, RunJournal, selectEncounters } = await import('../../../jobs/payment-run.js');
  const selection = await selectEncounters(client, {}, undefined);
  const plan = planRun(selection, {}, `AUTH-${today.replace(/-/g, '')}-RUN`);
  say(`$ tpa fund run --auth-code-prefix ${plan.prefix}        (review, then type the total: ${formatCentsGrouped(plan.total_cents)})`);
  // The scratch run is never resumed: a key of its own seals its plan.
  const runJournal = await RunJournal.open(join(dir, 'run.journal'), (await import('node:crypto')).randomBytes(32));
  let run;
  try {
    runJournal.confirm(plan);
    run = await executeRun(client, runJournal, { onOutcome: () => undefined });
  } finally {
    runJournal.close();
  }
  say(
    `→ ${run.outcomes.filter((o) => o.status === 'APPROVED').length} approvals, ${plan.encounters[0]?.authorization_code ?? ''} to ${plan.encounters.at(-1)?.authorization_code ?? ''}`,
  );
  check(
    `the run moved exactly the confirmed total: ${formatCentsGrouped(run.approvedCents)} = ${formatCentsGrouped(plan.total_cents)}`,
    run.approvedCents === plan.total_cents && run.outcomes.every((o) => o.status === 'APPROVED') && run.exitCode === 0,
  );
  return { prefix: plan.prefix, approvals: run.outcomes.length, total: formatCentsGrouped(run.approvedCents) };
}

/**
 * Each line runs as it is printed, in this order, from the user's folder (test/cli/demo/demo.test.ts
 * runs them). Run through npx (the Quick start's `npx tpa demo`), `tpa` is not on the PATH yet,
 * so the lines say `npx tpa`, which works there; run as `tpa demo`, they say `tpa`.
 */
function nextSteps({ ctx, say, tools }: Demo): void {
  const tpa = viaNpx(ctx.io.env) ? 'npx tpa' : 'tpa';
  say(`\n${tools.c.bold('Next')}: the same on your own local engine, from this folder; each line runs as it is`);
  const next: [string, string][] = [
    ['tpa local fixtures', ''],
    ['tpa claim template --type institutional > encounter.json', ''],
    ['tpa claim submit encounter.json --wait', 'prints the encounter id, enc_…'],
    ['for c in 45378 43235; do tpa claim template --cpt $c -o ndjson; done > claims.ndjson', ''],
    ['tpa claim submit claims.ndjson --wait', 'a batch: each claim sent once, resumable'],
    ['tpa fund run --dry-run', 'what a payment run would release'],
    ['tpa fund run', 'reviews, then asks before money moves'],
    ['tpa ledger list', ''],
  ];
  for (const [line, note] of next) {
    const text = line.replace(/\btpa /g, `${tpa} `);
    say(`  ${note ? `${text.padEnd(42)} # ${note}` : text}`);
  }
}

/** Whether this tpa was started by npx (npm exec): npm says so in npm_command; then `tpa` may not be on the PATH. */
export function viaNpx(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.npm_command === 'exec';
}
