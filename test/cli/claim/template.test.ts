import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTpaHome } from '../../helpers/cli.js';

const home = useTpaHome(beforeAll, afterAll);
const run = home.run;

interface Claim {
  careTeam: { provider: { identifier: { value: string } }; role: { coding: { system: string; code: string }[]; text?: string } }[];
  item: { unitPrice: { value: number }; net: { value: number } }[];
  total: { value: number };
}

/** The role a template's care-team member is given: the claimcareteamrole code, and the role in words. */
const roleOf = (claim: Claim, npi: string) => {
  const role = claim.careTeam.find((m) => m.provider.identifier.value === npi)?.role;
  // Only codes that code system has (the engine pays the contracted role from its registry).
  expect(role?.coding[0]?.system).toBe('http://terminology.hl7.org/CodeSystem/claimcareteamrole');
  expect(['primary', 'assist', 'supervisor', 'other']).toContain(role?.coding[0]?.code);
  return `${role?.coding[0]?.code} (${role?.text})`;
};

describe('tpa claim template', () => {
  it("names the provider in its contracted role by default: the anesthesia group's claim says anesthesia, not surgeon", async () => {
    const r = await run(['claim', 'template', '--npi', '1196382455', '--cpt', '00811']);
    expect(r.code, r.stderr).toBe(0);
    const claim = r.json<Claim>();
    expect(roleOf(claim, '1196382455')).toBe('other (anesthesia)');
    const pathology = (await run(['claim', 'template', '--npi', '1329475804', '--cpt', '88305'])).json<Claim>();
    expect(roleOf(pathology, '1329475804')).toBe('other (pathology)');
    // The surgeon's stays the surgeon's, and the claim is one the engine pays.
    expect(roleOf((await run(['claim', 'template'])).json<Claim>(), '1045782368')).toBe('primary (surgeon)');
    const file = join(home.dir, 'anesthesia.json');
    writeFileSync(file, r.stdout);
    const submitted = await run(['claim', 'submit', file, '--wait', '-o', 'json']);
    expect(submitted.code, submitted.stderr).toBe(0);
    expect(submitted.json()).toMatchObject({ disposition: 'APPROVED' });
  });

  it('--role names another role; a role tpa does not know is a usage error', async () => {
    const r = await run(['claim', 'template', '--npi', '1196382455', '--cpt', '00811', '--role', 'PATHOLOGY']);
    expect(r.code, r.stderr).toBe(0);
    expect(roleOf(r.json<Claim>(), '1196382455')).toBe('other (pathology)');
    // In any case, as a person types it.
    const lower = await run(['claim', 'template', '--npi', '1196382455', '--cpt', '00811', '--role', 'pathology']);
    expect(roleOf(lower.json<Claim>(), '1196382455')).toBe('other (pathology)');
    const bad = await run(['claim', 'template', '--role', 'JANITOR']);
    expect([bad.code, bad.stdout]).toEqual([2, '']);
    expect(bad.stderr).toMatch(/--role must be one of FACILITY, SURGEON, ANESTHESIA, PATHOLOGY/);
  });

  it('--charge sets each line charge, in the format tpa prints amounts; anything else is refused', async () => {
    const r = await run(['claim', 'template', '--cpt', '45378', '43235', '--charge', '2,040.50']);
    expect(r.code, r.stderr).toBe(0);
    const claim = r.json<Claim>();
    expect(claim.item.map((i) => [i.unitPrice.value, i.net.value])).toEqual([
      [2040.5, 2040.5],
      [2040.5, 2040.5],
    ]);
    expect(claim.total.value).toBe(4081);
    expect((await run(['claim', 'template', '--charge', '$1500'])).json<Claim>().item[0]!.net.value).toBe(1500);
    for (const bad of ['12.345', '1,00.00', '-5', '0', 'ten']) {
      const refused = await run(['claim', 'template', '--charge', bad]);
      expect([refused.code, refused.stdout], bad).toEqual([2, '']);
      expect(refused.stderr, bad).toMatch(/--charge/);
    }
  });

  it('-o ndjson prints the claim as one compact line, so that a batch file needs no jq', async () => {
    const pretty = await run(['claim', 'template', '--cpt', '45378']);
    const line = await run(['claim', 'template', '--cpt', '45378', '-o', 'ndjson']);
    expect(line.code).toBe(0);
    expect(line.stdout.endsWith('\n')).toBe(true);
    expect(line.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(line.stdout)).toEqual(pretty.json());
    const lines = [];
    for (const [cpt, patient] of [
      ['45378', 'MBR-1001'],
      ['43235', 'MBR-1002'],
    ])
      lines.push((await run(['claim', 'template', '--cpt', cpt!, '--patient', patient!, '-o', 'ndjson'])).stdout);
    const batch = join(home.dir, 'batch.ndjson');
    writeFileSync(batch, lines.join(''));
    const sent = await run(['claim', 'submit', batch, '--wait', '-o', 'ndjson']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout.trim().split('\n')).toHaveLength(2);
  });

  for (const [type, day, lines] of [
    ['professional', '2026-01-05', 1],
    ['institutional', '2026-01-06', 4],
  ] as const) {
    it(`--format 837 --type ${type} writes an 837 that claim convert turns into the template's claim and claim submit pays, as production data`, async () => {
      const args = ['claim', 'template', '--type', type, '--patient', 'MBR-1002', '--service-date', day];
      const fhir = JSON.parse((await run([...args, '-o', 'ndjson'])).stdout) as Record<string, any>;
      const x12 = await run([...args, '--format', '837']);
      expect(x12.code, x12.stderr).toBe(0);
      expect(x12.stdout).toMatch(/^ISA.{98}\*P\*:~\n/);
      expect(x12.stdout).toContain(type === 'professional' ? '005010X222A1' : '005010X223A2');
      const file = join(home.dir, `${type}.837`);
      writeFileSync(file, x12.stdout);
      const converted = await run(['claim', 'convert', file]);
      expect(converted.code, converted.stderr).toBe(0);
      expect(converted.stderr).not.toMatch(/test data|INVALID/);
      const claim = JSON.parse(converted.stdout) as Record<string, any>;
      // The same claim as the FHIR template: type, member, billing provider, the lines' codes,
      // charges and dates, and who performed each line.
      const npiOfLine = (c: Record<string, any>, item: Record<string, any>) =>
        c.careTeam?.find((m: Record<string, any>) => m.sequence === item.careTeamSequence?.[0])?.provider.identifier.value ?? null;
      const shape = (c: Record<string, any>) => ({
        type: c.type.coding[0].code,
        member: c.patient.reference,
        provider: c.provider.identifier.value,
        total: c.total.value,
        lines: c.item.map((i: Record<string, any>) => [
          i.productOrService.coding[0].code,
          i.revenue?.coding[0].code ?? null,
          i.net.value,
          i.servicedDate ?? c.billablePeriod.start,
          npiOfLine(c, i),
        ]),
      });
      expect(shape(claim)).toEqual(shape(fhir));
      expect(claim.item).toHaveLength(lines);
      const submitted = await run(['claim', 'submit', file, '--wait', '-o', 'ndjson']);
      expect(submitted.code, submitted.stderr).toBe(0);
      const entry = (await run(['ledger', 'list', '--from', day, '--to', day, '-o', 'json'])).json<{ results: Record<string, any>[] }>().results;
      expect(entry.map((e) => e.status)).toEqual(['ADJUDICATED']);
      expect(entry[0]!.financial_summary.benefit_amount).toBeGreaterThan(0);
    });
  }

  it('--format 837 gives each file its own interchange control number, so that two templates are two claims', async () => {
    const isa13 = async () => /\*00501\*(\d{9})\*/.exec((await run(['claim', 'template', '--format', '837'])).stdout)?.[1];
    const [a, b] = [await isa13(), await isa13()];
    expect(a).toMatch(/^\d{9}$/);
    expect(b).not.toBe(a);
    expect((await run(['claim', 'template', '--format', 'x12'])).code).toBe(2);
  });
});
