import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/engine.js';
import { runTpa, tpa, useTpaHome } from '../helpers/cli.js';

const home = useTpaHome(beforeAll, afterAll);
const run = home.run;

const COMMANDS = [
  ['lookup', 'blind'],
  ['lookup', 'full'],
  ['lookup', 'rates'],
  ['claim', 'template'],
  ['claim', 'validate'],
  ['claim', 'submit'],
  ['claim', 'poll'],
  ['local', 'fixtures'],
  ['local', 'reset'],
  ['api'],
  ['demo'],
];

describe('the program', () => {
  it('an option that takes one value refuses a second (exit 2, nothing done) where commander kept the last; a list takes them all', async () => {
    // A payment run filtered to one provider must not quietly select another's encounters.
    const twice = await run(['fund', 'run', '--npi', '1234567893', '--npi', '1045782368', '--dry-run', '-o', 'json']);
    expect(twice.code).toBe(2);
    expect(twice.stdout).toBe('');
    expect(twice.stderr).toMatch(/--npi is given more than once/);
    // So do the root's: a second profile or format is refused too, and choices are still checked.
    const profiles = await run(['-p', 'local', 'ledger', 'list', '-p', 'other']);
    expect([profiles.code, profiles.stderr]).toEqual([2, expect.stringMatching(/--profile is given more than once/)]);
    expect((await run(['ledger', 'list', '-o', 'bogus'])).stderr).toMatch(/Allowed choices are table, json, ndjson, csv/);
    // An empty profile on the line (a script's unset variable) is refused, not read as the default.
    for (const empty of [['-p', ''], ['--profile=']]) {
      const r = await run([...empty, 'ledger', 'list', '-o', 'json']);
      expect([r.code, r.stdout, r.stderr]).toEqual([2, '', expect.stringMatching(/--profile is empty/)]);
    }
    const list = await run(['lookup', 'rates', '--npi', '1045782368', '--group', 'GRP-1001', '--cpt', '45378', '--cpt', '43235', '-o', 'json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).map((r: { cpt_code: string }) => r.cpt_code)).toEqual(['45378', '43235']);
  });

  it('--help lists the commands and the exit codes', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const noun of ['lookup', 'claim', 'local', 'api', 'demo']) expect(r.stdout).toContain(noun);
    expect(r.stdout).toMatch(/Exit codes:/);
  });

  it('the root --help printed without building the tree is the one commander renders', async () => {
    // The built tpa, as a process: the help printed without the tree is a file of the build.
    const proc = (args: string[], env: Record<string, string> = {}) => tpa(args, { home: home.dir, env });
    const fast = await proc(['--help']);
    const built = await proc(['--help'], { TPA_NO_STATIC_HELP: '1' });
    expect(fast.stdout).toBe(built.stdout);
    expect((await proc(['help'])).stdout).toBe(built.stdout);
    // And the tree run in-process renders the same.
    expect((await run(['--help'])).stdout).toBe(built.stdout);
  });

  it('every command has an example in its --help', async () => {
    for (const cmd of COMMANDS) {
      const r = await run([...cmd, '--help']);
      expect(r.code, cmd.join(' ')).toBe(0);
      expect(r.stdout, cmd.join(' ')).toMatch(/Examples:\n\s+\$ tpa /);
    }
  });

  it('--version prints the version', async () => {
    const r = await run(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('an unknown command is a usage error with a suggestion', async () => {
    const r = await run(['lokup']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'lokup'/);
    expect(r.stderr).toMatch(/lookup/);
  });

  describe("commander's usage errors print the message, the command's usage line and where its help is (exit 2)", () => {
    const cases: [string, string[], RegExp, string, string][] = [
      ['an unknown option', ['ledger', 'list', '--bogus'], /^error: unknown option '--bogus'\n/, 'tpa ledger list [options]', 'tpa ledger list'],
      [
        'an unknown option like a known one',
        ['ledger', 'list', '--limt', '3'],
        /^error: unknown option '--limt'\n\(Did you mean --limit\?\)\n/,
        'tpa ledger list [options]',
        'tpa ledger list',
      ],
      ['an unknown command', ['ledger', 'lst'], /^error: unknown command 'lst'\n\(Did you mean list\?\)\n/, 'tpa ledger [options] [command]', 'tpa ledger'],
      ['an unknown root command', ['ledgr'], /^error: unknown command 'ledgr'\n\(Did you mean ledger\?\)\n/, 'tpa [options] [command]', 'tpa'],
      [
        'a missing argument',
        ['fund', 'approve'],
        /^error: missing required argument 'encounter_id'\n/,
        'tpa fund approve [options] <encounter_id>',
        'tpa fund approve',
      ],
      [
        'too many arguments',
        ['ledger', 'show', 'enc_a', 'enc_b'],
        /^error: too many arguments for 'show'\. Expected 1 argument but got 2: enc_a, enc_b\.\n/,
        'tpa ledger show [options] <encounter_id>',
        'tpa ledger show',
      ],
      [
        'an option without its value',
        ['ledger', 'list', '--limit'],
        /^error: option '--limit <n>' argument missing\n/,
        'tpa ledger list [options]',
        'tpa ledger list',
      ],
    ];
    for (const [kind, args, message, usage, command] of cases)
      it(kind, async () => {
        const r = await run(args);
        expect(r.code).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(message);
        expect(r.stderr).toContain(`\nUsage: ${usage}\nRun \`${command} --help\` for its options and examples.\n`);
      });
  });

  it("commander's error, long, is wrapped at spaces on a terminal: no line over its width, every argument whole", async () => {
    const many = Array.from({ length: 12 }, (_, i) => `enc_01a24f6dc3749128dc${String(i).padStart(2, '0')}`);
    const r = await runTpa(['ledger', 'show', ...many], { home: home.dir, tty: true, columns: 80 });
    expect(r.code).toBe(2);
    const lines = r.stderr.split('\n');
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80);
    for (const id of many.slice(1)) expect(r.stderr.split(/[\s,.]+/)).toContain(id);
  });

  it('an unknown output format is a usage error', async () => {
    const r = await run(['local', 'fixtures', '-o', 'xml']);
    expect(r.code).toBe(2);
    const env = await run(['local', 'fixtures'], { TPA_OUTPUT: 'yaml' });
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/'yaml' from env 'TPA_OUTPUT' is invalid. Allowed choices are table, json, ndjson, csv/);
  });

  it('a bad TPA_CLOCK is a clear usage error, not a crash', async () => {
    const r = await run(['lookup', 'blind', '--npi', '1045782368', '--group', 'GRP-1001', '--cpt', '45378', '-o', 'table'], { TPA_CLOCK: 'yesterday' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/TPA_CLOCK must be an ISO 8601 date or a date-time with its zone/);
  });

  it('a TPA_CLOCK date-time without its zone is refused: it would be another instant on every machine', async () => {
    const r = await run(['local', 'clock'], { TPA_CLOCK: '2026-03-06T20:00:00' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/with its zone/);
    expect((await run(['local', 'clock'], { TPA_CLOCK: '2026-03-06' })).json()).toMatchObject({ now: '2026-03-06T00:00:00Z' });
  });

  it('the claim template dates the service by the engine clock', async () => {
    await run(['local', 'clock', 'set', '2027-02-01T12:00:00Z']);
    try {
      const claim = JSON.parse((await run(['claim', 'template'])).stdout) as { item: { servicedDate: string }[] };
      expect(claim.item[0]!.servicedDate).toBe('2027-02-01');
    } finally {
      await run(['local', 'clock', 'real']);
    }
  });

  it('a profile that does not exist is refused with a hint', async () => {
    const r = await run(['lookup', 'blind', '--npi', '1045782368', '--group', 'GRP-1001', '--cpt', '45378', '-p', 'prod', '-o', 'table']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no profile named "prod"/);
  });
});

describe('tpa local', () => {
  it('fixtures lists providers, contracts and members', async () => {
    const r = await run(['local', 'fixtures', '-o', 'json']);
    expect(r.code).toBe(0);
    const f = r.json<{
      providers: { role: string }[];
      contracts: { rate_type: string; bundle_type: string | null }[];
      members: { coverage_end: string | null }[];
    }>();
    expect(new Set(f.providers.map((p) => p.role))).toEqual(new Set(['FACILITY', 'SURGEON', 'ANESTHESIA', 'PATHOLOGY']));
    expect(new Set(f.contracts.map((c) => c.rate_type))).toEqual(new Set(['FLAT_RATE', 'CASE_RATE', 'PERCENT_OF_CHARGES', 'BUNDLE']));
    expect(new Set(f.contracts.map((c) => c.bundle_type))).toEqual(new Set([null, 'SINGLE', 'DOUBLE_HEADER', 'PACKAGE']));
    expect(f.members.some((m) => m.coverage_end !== null)).toBe(true);
    const table = await run(['local', 'fixtures', '-o', 'table']);
    expect(table.stdout).toMatch(/Providers[\s\S]*Contracts[\s\S]*Members/);
    expect(table.stdout).toContain('ctr_8d21b5e09f4c7a13');
  });

  it('reset refuses without --yes when it cannot ask, and deletes the database with it', async () => {
    await run(['local', 'fixtures']);
    const db = join(home.dir, 'local.sqlite');
    expect(existsSync(db)).toBe(true);
    const refused = await run(['local', 'reset']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--yes/);
    expect(existsSync(db)).toBe(true);
    const done = await run(['local', 'reset', '--yes']);
    expect(done.code).toBe(0);
    expect(existsSync(db)).toBe(false);
  });
});

describe('tpa api', () => {
  it('sends a raw request and exits by the status code', async () => {
    const ok = await run(['api', 'POST', '/tpa-api/v1/contract-lookup/blind/', '-d', '{"npi":"1045782368","group_id":"GRP-1001","cpt_codes":["45378"]}']);
    expect(ok.code).toBe(0);
    expect(ok.json()).toMatchObject({ match_found: true });
    const missing = await run(['api', 'GET', '/tpa-api/v1/claims/sub_x/response/', '--include']);
    expect(missing.code).toBe(3);
    expect(missing.stdout).toMatch(/^HTTP\/1\.1 404\ncontent-type: application\/json\n\n\{/);
    const bad = await run(['api', 'POST', '/tpa-api/v1/contract-lookup/blind/', '-d', '{"npi":"1"}']);
    expect(bad.code).toBe(2);
  });

  it('refuses a path that is not as served and a body that is not JSON', async () => {
    expect((await run(['api', 'GET', 'claims'])).code).toBe(2);
    expect((await run(['api', 'POST', '/tpa-api/v1/contract-lookup/blind/', '-d', '{oops'])).code).toBe(2);
  });
});

describe('tpa demo', () => {
  it('tells the story and checks the rule, leaving the local data untouched', async () => {
    const fresh = tempDir();
    const r = await runTpa(['demo', '-o', 'table'], { home: fresh.dir });
    expect(existsSync(join(fresh.dir, 'local.sqlite'))).toBe(false);
    fresh.remove();
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /Blind lookup[\s\S]*Full lookup[\s\S]*Submit[\s\S]*Poll[\s\S]*approve the fund release[\s\S]*reconciled[\s\S]*ledger[\s\S]*A batch[\s\S]*A payment run/,
    );
    expect(r.stdout.match(/✓/g)).toHaveLength(8);
    expect(r.stdout).toMatch(/✓ the same batch again sends nothing: 8 skipped/);
    expect(r.stdout).toMatch(/✓ the run moved exactly the confirmed total: ([\d,.]+) = \1/);
    expect(r.stdout).not.toMatch(/✗/);
    expect(r.stdout).toMatch(/Benefit \(the plan pays\)\s+2,460\.00/);
    const json = await run(['demo']);
    expect(json.code).toBe(0);
    expect(json.json()).toMatchObject({
      rules_hold: true,
      claim_response: { disposition: 'APPROVED' },
      funding: { status: 'APPROVED' },
      settlement: { status: 'COMPLETED' },
      batch: { counts: { ACKNOWLEDGED: 8, INVALID: 0, FAILED: 0 } },
    });
  });
});
