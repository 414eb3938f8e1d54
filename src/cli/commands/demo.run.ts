// Handlers of `tpa demo` (declared in demo.ts): parse and check options, call the client, shape the output.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCents } from '../../domain/money.js';
import { EXIT, TpaError } from '../../errors.js';
import type { Handler } from '../action.js';
import { claimTemplate } from '../claim-template.js';
import { todayFor } from './claim.run.js';

const SURGEON = { npi: '1045782368', group: 'GRP-1001', name: 'Dr. Alice Morgan, Riverside GI' };

export const demo: Handler = async (ctx) => {
      const [{ TpaClient }, { LocalTransport }, { pollClaim }, tools] = await Promise.all([
        import('../../client/client.js'),
        import('../../client/local.js'),
        import('../../client/polling.js'),
        import('../../render/output.js').then((m) => m.tableTools(ctx.color)),
      ]);
      const narrate = ctx.format === 'table';
      const say = (text = '') => narrate && ctx.io.stdout.write(`${text}\n`);
      const step = (n: number, title: string) => say(`\n${tools.c.bold(`${n}. ${title}`)}`);
      const dir = mkdtempSync(join(tmpdir(), 'tpa-demo-'));
      const transport = new LocalTransport(dir, ctx.io.env);
      const client = new TpaClient(transport, { debug: ctx.debug ? (l) => ctx.io.stderr.write(`[debug] ${l}\n`) : undefined });
      try {
        say(tools.c.bold('tpa demo: the claim lifecycle on the embedded engine'));
        say(`A scratch engine in ${dir}, seeded like a fresh one; your own local data is not touched.`);

        step(1, 'Seeded fixtures');
        const fixtures = (await transport.open()).fixtures() as Record<string, unknown[]>;
        say(`${fixtures.providers!.length} providers, ${fixtures.contracts!.length} contracts, ${fixtures.members!.length} members (see \`tpa local fixtures\`).`);
        say(`We bill for ${SURGEON.name} (NPI ${SURGEON.npi}, group ${SURGEON.group}), a colonoscopy (CPT 45378) for member MBR-1003.`);

        step(2, 'Blind lookup: is there a contract? (no pricing is revealed)');
        const blind = await client.blindLookup({ npi: SURGEON.npi, group_id: SURGEON.group, cpt_codes: ['45378'] });
        say(`$ tpa lookup blind --npi ${SURGEON.npi} --group ${SURGEON.group} --cpt 45378`);
        say(`→ ${blind.body.message}: ${blind.body.contract_id}`);

        step(3, 'Full lookup: pricing and terms for the code');
        const full = await client.fullLookup({ contract_id: blind.body.contract_id!, npi: SURGEON.npi, group_id: SURGEON.group, cpt_code: '45378' });
        say(`$ tpa lookup full ${full.body.contract_id} --npi ${SURGEON.npi} --group ${SURGEON.group} --cpt 45378`);
        say(`→ contract ${full.body.contract_number}, ${full.body.rate_type} $${tools.amount(full.body.negotiated_rate)}, ${full.body.network_tier}`);

        step(4, 'Submit a FHIR R4 claim');
        const claim = claimTemplate({ type: 'professional', npi: SURGEON.npi, cpt: ['45378'], patient: 'MBR-1003', serviceDate: todayFor(ctx) });
        const ack = await client.submitClaim(JSON.stringify(claim));
        say('$ tpa claim template > claim.json && tpa claim submit claim.json');
        say(`→ ${ack.body.status}: submission ${ack.body.submission_id}, encounter ${ack.body.external_claim_id}`);

        step(5, 'Poll for the adjudication (asynchronous, as the service is)');
        const result = await pollClaim(client, ack.body.submission_id, {
          timeoutMs: 60_000,
          firstDelayMs: 2000,
          onWait: ({ waitMs }) => say(`… not ready yet, checking again in ${Math.ceil(waitMs / 1000)}s`),
        });
        const adj = result.body.adjudication!;
        say(`$ tpa claim poll ${ack.body.submission_id} --wait`);
        say(`→ ${result.body.disposition}`);
        say(
          tools.keyValues([
            ['Charges', tools.amount(adj.total_charges)],
            ['Allowed (lesser of charge and contract)', tools.amount(adj.allowed_amount)],
            ['  Copay', tools.amount(adj.copay_applied)],
            ['  Deductible', tools.amount(adj.deductible_applied)],
            ['  Coinsurance', tools.amount(adj.coinsurance_applied)],
            ['Patient responsibility', tools.amount(adj.patient_responsibility)],
            ['Benefit (the plan pays)', tools.amount(adj.benefit_amount)],
          ]),
        );

        step(6, 'Check: allowed = benefit + patient responsibility, to the cent');
        const cents = (v: number) => parseCents(String(v)) ?? NaN;
        const holds = cents(adj.allowed_amount) === cents(adj.benefit_amount) + cents(adj.patient_responsibility);
        say(`${tools.amount(adj.allowed_amount)} = ${tools.amount(adj.benefit_amount)} + ${tools.amount(adj.patient_responsibility)}  ${holds ? tools.c.green('✓ holds') : tools.c.red('✗ BROKEN')}`);
        if (!holds) throw new TpaError(EXIT.INTERNAL, 'rule_broken', 'the adjudication broke allowed = benefit + patient responsibility');

        say(`\n${tools.c.bold('Next')}: try it on your own local engine`);
        say('  tpa local fixtures');
        say('  tpa claim template > claim.json && tpa claim submit claim.json --wait');
        say('  tpa claim template --type institutional > encounter.json && tpa claim submit encounter.json --wait');
        return narrate
          ? undefined
          : { data: { blind_lookup: blind.body, full_lookup: full.body, acknowledgment: ack.body, claim_response: result.body, adjudication: adj, rule_holds: holds } };
      } finally {
        transport.close();
        rmSync(dir, { recursive: true, force: true });
      }
    };
