// Builds an upgrade fixture (upgrades keep data): the engine of an earlier release, taken
// from git at <commit>, writes a small database through its own request path, and the answers it
// gave for it are recorded beside it. test/engine/upgrade.test.ts opens a copy with the current
// engine and expects the same answers. Run from the project root:
//
//   node scripts/upgrade-fixture.mjs <commit> <name>     → test/fixtures/upgrade/<name>.sqlite and .json
//
// The scenario: claims that are paid, denied (coverage ended, a duplicate) and split over two
// dates, on a frozen clock with no adjudication delay; where the release has funding, two fund
// approvals, then the clock moved past their settlement. The answers recorded are every claim
// response and, where the release has them, the ledger list, each ledger entry and each settlement.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [commit, name] = process.argv.slice(2);
if (!commit || !name) {
  console.error('usage: node scripts/upgrade-fixture.mjs <commit> <name>');
  process.exit(2);
}
const root = process.cwd();
const work = mkdtempSync(join(tmpdir(), 'tpa-upgrade-fixture-'));
try {
  // The release's sources (not its dependencies: the current node_modules serve, as in a user's upgrade).
  execFileSync('sh', ['-c', `git archive ${commit} src | tar -x -C "${work}"`], { cwd: root, stdio: 'inherit' });
  symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'), 'dir');
  // The claim template sat in src/cli/ before it moved to src/domain/: take it where the release has it.
  const template = ['src/domain/claim-template.ts', 'src/cli/claim-template.ts'].map((p) => join(work, p)).find((p) => existsSync(p));
  await build({
    entryPoints: { engine: join(work, 'src/engine/engine.ts'), template },
    outdir: join(work, 'bundle'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['better-sqlite3'],
    banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  });
  const { Engine } = await import(pathToFileURL(join(work, 'bundle/engine.mjs')).href);
  const { claimTemplate } = await import(pathToFileURL(join(work, 'bundle/template.mjs')).href);

  const T0 = '2026-08-10T12:00:00Z';
  const T1 = '2026-08-24T12:00:00Z';
  const dataDir = join(work, 'data');
  const open = (clock) => Engine.open({ dataDir, env: { TPA_CLOCK: clock, TPA_ADJUDICATION_DELAY: '0' } });
  const request = (engine, method, path, body, headers = {}) => {
    const url = new URL(path, 'http://local');
    const res = engine.handle({ method, path: url.pathname, query: url.searchParams, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { method, path, status: res.status, body: res.body };
  };

  let engine = open(T0);
  const claims = [
    claimTemplate({ type: 'institutional', patient: 'MBR-1001', cpt: ['45378'], serviceDate: '2026-08-03' }),
    claimTemplate({ type: 'professional', patient: 'MBR-1002', cpt: ['45380', '88305'], serviceDate: '2026-08-04' }),
    claimTemplate({ type: 'professional', patient: 'MBR-1003', cpt: ['43235'], serviceDate: '2026-08-05' }),
    // Coverage ended on 2026-06-30: denied.
    claimTemplate({ type: 'professional', patient: 'MBR-1005', cpt: ['45378'], serviceDate: '2026-07-15' }),
  ];
  // The first claim again: a duplicate of a paid one.
  claims.push(structuredClone(claims[0]));
  const submitted = claims.map((claim) => request(engine, 'POST', '/tpa-api/v1/claims/submit/', claim, { 'content-type': 'application/fhir+json' }));
  for (const s of submitted) if (s.status !== 201) throw new Error(`the release refused a claim: ${s.status} ${JSON.stringify(s.body)}`);
  const responses = submitted.map((s) => request(engine, 'GET', `/tpa-api/v1/claims/${s.body.submission_id}/response/?include_raw_response=true`));

  // The benefit as the release's claim response gave it (a JSON number, or a decimal string).
  const benefitOf = (body) => {
    const b = body.adjudication?.benefit_amount ?? body.adjudication?.payer_responsibility;
    if (b === undefined) throw new Error(`no benefit in ${JSON.stringify(body.adjudication)}`);
    return typeof b === 'string' ? Number(b) : b;
  };
  const hasLedger = request(engine, 'GET', '/tpa-api/v1/ledger/entries/').status === 200;
  if (hasLedger) {
    // Fund the first two with a benefit (their benefits, as adjudicated).
    responses
      .filter((r) => r.body.adjudication && benefitOf(r.body) > 0)
      .slice(0, 2)
      .forEach((r, i) => {
        const approved = request(
          engine,
          'POST',
          '/tpa-api/v1/funding/approve/',
          { encounter_id: r.body.external_claim_id, amount: benefitOf(r.body), authorization_code: `AUTH-20260810-FIXTURE-000${i + 1}` },
          { 'content-type': 'application/json', 'idempotency-key': `fixture-${i + 1}` },
        );
        if (approved.status !== 200 && approved.status !== 201)
          throw new Error(`the release refused a fund approval: ${approved.status} ${JSON.stringify(approved.body)}`);
      });
    engine.close();
    engine = open(T1);
  }
  const answers = [...responses.map((r) => request(engine, 'GET', r.path))];
  if (hasLedger) {
    const list = request(engine, 'GET', '/tpa-api/v1/ledger/entries/?limit=100');
    answers.push(list);
    for (const entry of list.body.results) {
      answers.push(request(engine, 'GET', `/tpa-api/v1/ledger/entries/${entry.encounter_id}/`));
      answers.push(request(engine, 'GET', `/tpa-api/v1/settlement/${entry.encounter_id}/`));
    }
  }
  engine.db.pragma('wal_checkpoint(TRUNCATE)');
  const schemaVersion = engine.db.pragma('user_version', { simple: true });
  engine.close();

  const out = join(root, 'test/fixtures/upgrade');
  mkdirSync(out, { recursive: true });
  copyFileSync(join(dataDir, 'local.sqlite'), join(out, `${name}.sqlite`));
  for (const extra of ['-wal', '-shm']) if (existsSync(join(dataDir, `local.sqlite${extra}`))) rmSync(join(dataDir, `local.sqlite${extra}`));
  writeFileSync(
    join(out, `${name}.json`),
    `${JSON.stringify({ release: commit, schema_version: schemaVersion, clock: hasLedger ? T1 : T0, answers }, null, 2)}\n`,
  );
  console.log(`test/fixtures/upgrade/${name}.sqlite (schema version ${schemaVersion}) and ${name}.json: ${answers.length} answers`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
