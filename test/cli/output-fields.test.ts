// --json <fields>, --jq and --template on the commands that print records (docs/scripting.md "Scripts:
// fields, jq and templates"), in-process on the embedded engine.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTpaHome } from '../helpers/cli.js';
import { IG_EXAMPLES, igX12Mapped } from '../helpers/ig-examples.js';
import { institutionalClaim, interchange, professionalClaim, transaction } from '../helpers/x12.js';

const home = useTpaHome(beforeAll, afterAll);
const run = (...args: string[]) => home.run(args);
const SURGEON = ['--npi', '1045782368', '--group', 'GRP-1001'];

beforeAll(async () => {
  // Three encounters in the ledger.
  for (const cpt of ['45378', '43235', '45380']) {
    const template = await run('claim', 'template', '--cpt', cpt);
    expect(template.code).toBe(0);
    const file = join(home.dir, `${cpt}.json`);
    writeFileSync(file, template.stdout);
    const submitted = await run('claim', 'submit', file, '--wait', '-o', 'json');
    expect(submitted.code).toBe(0);
  }
});

describe('--json <fields>', () => {
  it('keeps only the fields given, in their order, in each record of a list', async () => {
    const r = await run('ledger', 'list', '--json', 'status,encounter_number');
    expect(r.code).toBe(0);
    const rows = r.json<Record<string, unknown>[]>();
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(Object.keys(row)).toEqual(['status', 'encounter_number']);
    expect(rows.map((row) => row.encounter_number).sort()).toEqual(['ENC-2026-000001', 'ENC-2026-000002', 'ENC-2026-000003']);
  });

  it('keeps only the fields given of a single record, an object', async () => {
    const r = await run('lookup', 'blind', ...SURGEON, '--cpt', '45378', '--json', 'contract_id,match_found');
    expect(r.code).toBe(0);
    expect(r.json()).toEqual({ contract_id: 'ctr_8d21b5e09f4c7a13', match_found: true });
    // A field a record lacks is null, so that every record has the same keys.
    const entries = await run('ledger', 'list', '--json', 'encounter_number,superseded_by');
    expect(entries.json<Record<string, unknown>[]>().map((e) => e.superseded_by)).toEqual([null, null, null]);
  });

  it("an error answer's body is printed as the service answered it, not shaped", async () => {
    const none = await run('lookup', 'blind', ...SURGEON, '--cpt', '99213', '--json', 'contract_id');
    expect(none.code).toBe(3);
    expect(none.json()).toMatchObject({ match_found: false });
  });

  it('with -o ndjson, a selected record a line', async () => {
    const r = await run('ledger', 'list', '--json', 'encounter_number', '-o', 'ndjson');
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toHaveLength(3);
    expect(r.stdout.trim().split('\n')[0]).toMatch(/^\{"encounter_number":"ENC-2026-00000\d"\}$/);
  });

  it('alone, lists the fields on stderr as gh does, and exits 2 with nothing on stdout', async () => {
    const r = await run('ledger', 'list', '--json');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Specify one or more comma-separated fields for `--json`:\n/);
    expect(r.stderr).toContain('\n  encounter_number\n');
    expect(r.stderr).toContain('\n  status_progression\n');
    // Before the command word too: the word is the command's, not a field.
    const before = await run('--json', 'ledger', 'list');
    expect(before.code).toBe(2);
    expect(before.stderr).toContain('\n  encounter_number\n');
  });

  it('an unknown field is a usage error naming the fields, found before anything is sent', async () => {
    // A profile that does not exist: had the command run, it would have said so instead.
    const r = await run('ledger', 'list', '--json', 'status,nope', '-p', 'nowhere');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    // Asked for JSON: the error too is JSON, on stderr.
    const { message } = JSON.parse(r.stderr).error;
    expect(message).toContain('unknown field "nope" for tpa ledger list; its fields: id, encounter_id, encounter_number');
    expect(message).not.toMatch(/nowhere/);
  });

  it('cannot be given with -o table or -o csv typed on the line; TPA_OUTPUT gives way to it', async () => {
    const table = await run('ledger', 'list', '--json', 'status', '-o', 'table');
    expect(table.code).toBe(2);
    expect(table.stderr).toContain('-o table cannot be given with --json');
    const csv = await run('ledger', 'list', '--jq', '.', '-o', 'csv');
    expect(csv.code).toBe(2);
    const env = await home.run(['ledger', 'list', '--json', 'status'], { TPA_OUTPUT: 'csv' });
    expect(env.code).toBe(0);
    expect(env.json<unknown[]>()).toHaveLength(3);
  });
});

describe('--jq', () => {
  it('filters the records with real jq: select, to_entries, @csv', async () => {
    const selected = await run('ledger', 'list', '--jq', 'map(select(.encounter_number > "ENC-2026-000001")) | length');
    expect(selected.code).toBe(0);
    expect(selected.stdout).toBe('2\n');
    const entries = await run('lookup', 'blind', ...SURGEON, '--cpt', '45378', '--jq', 'to_entries | map(.key)');
    expect(JSON.parse(entries.stdout)).toEqual(['match_found', 'contract_id', 'message']);
    const csv = await run('ledger', 'list', '--jq', 'sort_by(.encounter_number) | .[0] | [.encounter_number, .status] | @csv');
    expect(csv.stdout).toBe('"ENC-2026-000001","ADJUDICATED"\n');
  });

  it('prints a string result raw, and each of several results on its own line', async () => {
    const r = await run('ledger', 'list', '--jq', '.[] | .encounter_number');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(['ENC-2026-000001', 'ENC-2026-000002', 'ENC-2026-000003']);
    const objects = await run('ledger', 'list', '--jq', '.[] | {n: .encounter_number}');
    expect(objects.stdout.trim().split('\n')).toHaveLength(3);
    expect(objects.stdout).toMatch(/^\{"n":"ENC-2026-00000\d"\}\n/);
  });

  it('works on --json fields: the expression sees only the fields selected', async () => {
    const r = await run('ledger', 'list', '--json', 'status', '--jq', '.[0] | keys');
    expect(JSON.parse(r.stdout)).toEqual(['status']);
  });

  it("a syntax error is a usage error with jq's message, before anything is sent", async () => {
    const r = await run('ledger', 'list', '--jq', '.[', '-p', 'nowhere');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('syntax error');
    expect(r.stderr).not.toMatch(/nowhere/);
  });

  it("an error while it runs is a usage error with jq's message, and no stack", async () => {
    const r = await run('ledger', 'list', '--jq', '.[0].status | error("stopped here")');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('stopped here');
    expect(r.stderr).not.toMatch(/at .*\.[jt]s:\d+/);
  });

  it("sees none of tpa's environment", async () => {
    const r = await home.run(['ledger', 'list', '--jq', '$ENV.TPA_SECRET_PROBE // "absent"'], { TPA_SECRET_PROBE: 'leaked' });
    expect(r.stdout).toBe('absent\n');
  });

  it('over a list printed as its pages arrive (--all), goes through each page: per-record results as they come', async () => {
    const r = await run('ledger', 'list', '--all', '--limit', '2', '--jq', '.[] | .encounter_number');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(['ENC-2026-000001', 'ENC-2026-000002', 'ENC-2026-000003']);
    // An aggregate is per page: two pages, of 2 and 1.
    const lengths = await run('ledger', 'list', '--all', '--limit', '2', '--jq', 'length');
    expect(lengths.stdout).toBe('2\n1\n');
  });

  it('over an empty list runs once on [], with --all as without', async () => {
    for (const all of [[], ['--all']]) {
      const r = await run('ledger', 'list', ...all, '--from', '2099-01-01', '--jq', 'length');
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout, all.join(' ')).toBe('0\n');
      const t = await run('ledger', 'list', ...all, '--from', '2099-01-01', '--template', '{{len .}} records\n');
      expect(t.stdout, all.join(' ')).toBe('0 records\n');
    }
  });
});

describe('--template', () => {
  it('formats with range, if/else, pipes and printf', async () => {
    const tmpl = '{{range .}}{{if eq .status "ADJUDICATED"}}{{.encounter_number | printf "%-16s"}}paid{{else}}other{{end}}{{"\\n"}}{{end}}';
    const r = await run('ledger', 'list', '--template', tmpl);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(['ENC-2026-000001 paid', 'ENC-2026-000002 paid', 'ENC-2026-000003 paid']);
  });

  it('aligns tablerow columns and formats one record', async () => {
    const rows = await run('ledger', 'list', '--template', '{{range .}}{{tablerow .encounter_number .status}}{{end}}');
    expect(rows.stdout.split('\n').filter(Boolean)[0]).toMatch(/^ENC-2026-00000\d {2}ADJUDICATED$/);
    const one = await run('lookup', 'blind', ...SURGEON, '--cpt', '45378', '--template', '{{if .match_found}}yes {{.contract_id}}{{else}}no{{end}}');
    expect(one.stdout).toBe('yes ctr_8d21b5e09f4c7a13');
  });

  it('an unknown function or a syntax error is a usage error naming the column, before anything is sent', async () => {
    const unknown = await run('ledger', 'list', '--template', '{{range .}}{{shout .status}}{{end}}', '-p', 'nowhere');
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr).error.message).toContain('line 1, column 14: unknown function "shout"');
    const unclosed = await run('ledger', 'list', '--template', '{{range .}}{{.status}}');
    expect(unclosed.code).toBe(2);
    expect(JSON.parse(unclosed.stderr).error.message).toContain('line 1, column 1: {{range}} has no {{end}}');
    expect(unclosed.stdout).toBe('');
  });

  it('cannot be given with --jq', async () => {
    const r = await run('ledger', 'list', '--template', '{{.}}', '--jq', '.');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--jq and --template cannot be given together');
  });
});

describe('the fields a command declares', () => {
  it('hold every key of every record it prints', async () => {
    const commands = [
      ['ledger', 'list'],
      ['ledger', 'list', '--all'],
      ['ledger', 'show', 'ENC-2026-000001'],
      ['lookup', 'blind', ...SURGEON, '--cpt', '45378'],
      ['lookup', 'full', 'ctr_8d21b5e09f4c7a13', ...SURGEON, '--cpt', '45378'],
      ['lookup', 'rates', ...SURGEON, '--cpt', '45378', '43235'],
      ['health'],
      ['auth', 'status'],
      ['jobs', 'list'],
      ['local', 'audit', 'list'],
      ['local', 'keys', 'list'],
      ['ratesheet', 'catalog'],
      ['activity', '--since', '2026-01-01'],
      ['activity', '--since', '2026-01-01', '--totals'],
      ['settlement', 'show', 'ENC-2026-000001'],
      ['settlement', 'report', '--from', '2026-01-01', '--to', '2027-12-31'],
      ['ledger', 'eob', 'ENC-2026-000001'],
      ['local', 'fixtures'],
      ['ratesheet', 'show', 'BLD-1001'],
      ['ratesheet', 'preview', 'BLD-1001'],
      ['local', 'audit', 'head'],
      ['local', 'audit', 'verify'],
      ['local', 'clock', 'show'],
      ['claim', 'validate', join(home.dir, '45378.json')],
      ['claim', 'validate', join(home.dir, '45378.json'), join(home.dir, '43235.json')],
    ];
    // A key, so that local keys list has a record; a rate schedule with an item.
    expect((await run('local', 'keys', 'create')).code).toBe(0);
    expect((await run('ratesheet', 'init', 'BLD-1001')).code).toBe(0);
    expect((await run('ratesheet', 'add', 'BLD-1001', '--ssp', 'HD-0401', '--rate-type', 'CASE_RATE', '--rate', '2100')).code).toBe(0);
    for (const args of commands) await expectFieldsDeclared(args);
  });
});

/** The keys of the records `args` prints (-o ndjson) that its field list (--json) does not name: none. */
async function expectFieldsDeclared(args: string[]): Promise<void> {
  const listed = await run(...args, '--json');
  expect(listed.code, args.join(' ')).toBe(2);
  const fields = listed.stderr
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .filter(Boolean);
  const printed = await run(...args, '-o', 'ndjson');
  const keys = new Set(
    printed.stdout
      .split('\n')
      .filter(Boolean)
      .flatMap((l) => Object.keys(JSON.parse(l))),
  );
  expect(keys.size, args.join(' ')).toBeGreaterThan(0);
  expect(
    [...keys].filter((k) => !fields.includes(k)),
    args.join(' '),
  ).toEqual([]);
}

describe('the next-page hint of a shaped page', () => {
  it('repeats --jq, --json or --template as given, quoted for the shell, never adding -o json', async () => {
    const cases = [
      { shape: ['--jq', '.[].encounter_number'], quoted: "--jq '.[].encounter_number'" },
      { shape: ['--json', 'status,encounter_number'], quoted: '--json status,encounter_number' },
      { shape: ['--template', '{{range .}}{{.status}} {{end}}'], quoted: "--template '{{range .}}{{.status}} {{end}}'" },
    ];
    for (const { shape, quoted } of cases) {
      const r = await run('ledger', 'list', '--limit', '1', ...shape);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`next page:   tpa ledger list --limit 1 ${quoted} --offset 1\n`);
      expect(r.stderr).toContain(`all of them: tpa ledger list --limit 1 ${quoted} --all\n`);
      expect(r.stderr).toContain('entries: one page, the others are not in this output');
      expect(r.stderr).not.toContain('-o json');
    }
    const nd = await run('ledger', 'list', '--limit', '1', '--json', 'status', '-o', 'ndjson');
    expect(nd.stderr).toContain('next page:   tpa ledger list --limit 1 --json status -o ndjson --offset 1\n');
  });
});

describe('commands that send or move something', () => {
  it('fund approve --json lists its fields without running: nothing is released', async () => {
    const r = await run('fund', 'approve', 'ENC-2026-000001', '--amount', '1.00', '--auth-code', 'AUTH-1', '--yes', '--json');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('\n  processor_transfer_id\n');
    const ledger = await run('ledger', 'list', '--json', 'encounter_number,status');
    expect(ledger.json<{ status: string }[]>().map((e) => e.status)).toEqual(['ADJUDICATED', 'ADJUDICATED', 'ADJUDICATED']);
  });

  it('claim submit: one claim is one record; a batch goes through --jq an outcome at a time, as each is written', async () => {
    const one = await run('claim', 'template', '--cpt', '45378', '--service-date', '2026-11-02');
    const file = join(home.dir, 'one.json');
    writeFileSync(file, one.stdout);
    const single = await run('claim', 'submit', file, '--json', 'status,submission_id');
    expect(single.code).toBe(0);
    expect(Object.keys(single.json())).toEqual(['status', 'submission_id']);
    const batch = await run('claim', 'submit', join(home.dir, '45378.json'), join(home.dir, '43235.json'), '--jq', '.[] | [.source, .status] | @tsv');
    expect(batch.code).toBe(0);
    const lines = batch.stdout.trim().split('\n').sort();
    expect(lines.map((l) => l.split('\t')[0])).toEqual([join(home.dir, '43235.json'), join(home.dir, '45378.json')]);
    for (const line of lines) expect(line).toMatch(/\t[A-Z_]+$/);
    // The batch's journal: jobs show prints its claims.
    await expectFieldsDeclared(['jobs', 'show', 'claims']);
  });
});

describe('settlement report', () => {
  it('its records are its encounters, as -o ndjson writes them: --jq adds them up', async () => {
    const period = ['settlement', 'report', '--from', '2026-01-01', '--to', '2027-12-31'];
    const lines = await run(...period, '-o', 'ndjson');
    const benefits = lines.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).benefit as number);
    const sum = await run(...period, '--jq', 'map(.benefit) | add');
    expect(sum.code).toBe(0);
    expect(Number(sum.stdout)).toBeCloseTo(
      benefits.reduce((a, b) => a + b, 0),
      2,
    );
    const numbers = await run(...period, '--template', '{{range .}}{{.encounter_number}} {{end}}');
    expect(numbers.stdout.trim().split(' ')).toHaveLength(benefits.length);
  });
});

describe('fund run', () => {
  it('--dry-run is shaped as a list; the run goes through --jq an approval at a time, as each is sent', async () => {
    const dry = await run('fund', 'run', '--dry-run', '--json', 'encounter_number,amount');
    expect(dry.code).toBe(0);
    const planned = dry.json<{ encounter_number: string; amount: number }[]>();
    expect(planned.length).toBeGreaterThan(0);
    for (const p of planned) expect(Object.keys(p)).toEqual(['encounter_number', 'amount']);
    const total = await run('fund', 'run', '--dry-run', '--jq', 'map(.amount) | add');
    const sent = await run('fund', 'run', '--auth-code-prefix', 'AUTH-20261126-JQ', '--expect-total', total.stdout.trim(), '--yes', '--jq', '.[] | .status');
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout.trim().split('\n')).toEqual(planned.map(() => 'APPROVED'));
  });
});

describe('a document of its own: ledger eob', () => {
  it('is one record to --jq; with --out, which writes the whole document, it is refused before anything is read', async () => {
    const r = await run('ledger', 'eob', 'ENC-2026-000001', '--jq', '.resourceType');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('ExplanationOfBenefit\n');
    const out = await run('ledger', 'eob', 'ENC-2026-000001', '--jq', '.', '--out', join(home.dir, 'eob.json'), '-p', 'nowhere');
    expect(out.code).toBe(2);
    expect(JSON.parse(out.stderr).error.message).toContain('--out writes the whole document');
  });
});

describe('commands that print no records', () => {
  it('refuse --json, --jq and --template rather than ignore them', async () => {
    for (const args of [
      ['demo', '--jq', '.'],
      ['claim', 'template', '--json', 'id'],
      ['completion', 'bash', '--template', '{{.}}'],
    ]) {
      const r = await run(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.stderr, args.join(' ')).toMatch(/prints no records: --(json|jq|template) cannot shape its output/);
    }
  });
});

describe('claim convert: its records are the FHIR Claims', () => {
  /** Two 837s: a professional replacement (REF*F8) with a facility, an institutional claim, and one claim convert refuses. */
  const files = () => {
    const replacement = professionalClaim({ clm01: 'CNV-P1', extra: ['NM1*77*2*RIVERSIDE SURGERY CENTER*****XX*1234567893'] }).flatMap((s) =>
      s.startsWith('CLM*') ? [s.replace('11:B:1', '11:B:7'), 'REF*F8*ENC-2026-000001'] : [s],
    );
    const professional = join(home.dir, 'convert-p.837');
    writeFileSync(
      professional,
      interchange([transaction({ st02: '0001', type: 'professional', claims: [replacement, professionalClaim({ clm01: 'CNV-P2' })] })], {
        isa13: '000000101',
      }),
    );
    const institutional = join(home.dir, 'convert-i.837');
    writeFileSync(
      institutional,
      interchange(
        [transaction({ st02: '0001', type: 'institutional', claims: [institutionalClaim({ clm01: 'CNV-I1', hi: 'HI*ABK:K635*BBR:0DJ08ZZ:D8:20250110' })] })],
        {
          isa13: '000000102',
          gs08: '005010X223A2',
        },
      ),
    );
    // The published 837P: its patient a dependent (loop 2000C), a contained Patient and Coverage.
    const dependent = join(home.dir, 'convert-dep.837');
    writeFileSync(dependent, igX12Mapped(IG_EXAMPLES[0]!));
    return [professional, institutional, dependent];
  };

  it('declares the FHIR Claim’s top-level keys: every key printed is one, and each one is printed by some claim', async () => {
    const paths = files();
    await expectFieldsDeclared(['claim', 'convert', ...paths]);
    const listed = await run('claim', 'convert', ...paths, '--json');
    expect(listed.code).toBe(2);
    expect(listed.stdout).toBe('');
    const fields = listed.stderr
      .split('\n')
      .slice(1)
      .map((l) => l.trim())
      .filter(Boolean);
    const printed = await run('claim', 'convert', ...paths, '-o', 'ndjson');
    const keys = new Set(
      printed.stdout
        .trim()
        .split('\n')
        .flatMap((l) => Object.keys(JSON.parse(l))),
    );
    expect([...keys].sort()).toEqual(fields);
    expect(fields).toContain('supportingInfo');
  });

  it('--json <fields> keeps those of each Claim (a JSON array, or a Claim a line with -o ndjson), not a Bundle', async () => {
    const paths = files();
    const array = await run('claim', 'convert', ...paths, '--json', 'identifier,total');
    expect(array.code, array.stderr).toBe(0);
    const claims = array.json<{ identifier: { value: string }[]; total: { value: number } }[]>();
    expect(claims.map((c) => c.identifier[0]!.value)).toEqual(['CNV-P1', 'CNV-P2', 'CNV-I1', IG_EXAMPLES[0]!.clm01]);
    for (const c of claims) expect(Object.keys(c)).toEqual(['identifier', 'total']);
    expect(claims[0]!.total).toEqual({ value: 1800, currency: 'USD' });
    const lines = await run('claim', 'convert', paths[0]!, '--json', 'status,related', '-o', 'ndjson');
    expect(lines.code, lines.stderr).toBe(0);
    expect(
      lines.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { status: 'active', related: [expect.objectContaining({ claim: { identifier: { value: 'ENC-2026-000001' } } })] },
      { status: 'active', related: null },
    ]);
    expect(lines.stderr).toMatch(/2 claims: 2 converted; nothing was sent/);
  });

  it('--jq and --template go through a claim at a time, as each is converted; a claim refused is not printed, exit 2', async () => {
    const paths = files();
    const totals = await run('claim', 'convert', ...paths, '--jq', '.[] | "\\(.identifier[0].value) \\(.total.value)"');
    expect(totals.code, totals.stderr).toBe(0);
    expect(totals.stdout).toBe(`CNV-P1 1800\nCNV-P2 1800\nCNV-I1 2400\n${IG_EXAMPLES[0]!.clm01} ${await convertedTotal(paths[2]!)}\n`);
    // Each part jq sees is one claim's array: an aggregate is per claim.
    const lengths = await run('claim', 'convert', ...paths, '--jq', 'length');
    expect(lengths.stdout).toBe('1\n1\n1\n1\n');
    const template = await run(
      'claim',
      'convert',
      paths[1]!,
      '--template',
      '{{range .}}{{.resourceType}} {{.type.coding | pluck "code" | join ","}}{{"\\n"}}{{end}}',
    );
    expect(template.code, template.stderr).toBe(0);
    expect(template.stdout).toBe('Claim institutional\n');
    // A CPT code of four digits: that claim is refused on stderr, not printed; the other is.
    const bad = join(home.dir, 'convert-bad.837');
    writeFileSync(
      bad,
      interchange(
        [
          transaction({
            st02: '0001',
            type: 'professional',
            claims: [professionalClaim({ clm01: 'CNV-OK' }), professionalClaim({ clm01: 'CNV-BAD', lines: [{ cpt: '4537', charge: '10' }] })],
          }),
        ],
        { isa13: '000000103' },
      ),
    );
    const mixed = await run('claim', 'convert', bad, '--jq', '.[] | .identifier[0].value');
    expect(mixed.code).toBe(2);
    expect(mixed.stdout).toBe('CNV-OK\n');
    expect(mixed.stderr).toMatch(/CNV-BAD/);
  });

  it('a jq syntax error is refused before any file is read', async () => {
    const r = await run('claim', 'convert', join(home.dir, 'no-such.837'), '--jq', '.[');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('syntax error');
    expect(r.stderr).not.toContain('no-such.837');
  });
});

/** The total charge of the one claim a file converts to. */
async function convertedTotal(path: string): Promise<number> {
  const r = await run('claim', 'convert', path, '-o', 'ndjson');
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).total.value;
}
