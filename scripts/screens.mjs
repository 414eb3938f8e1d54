// Writes docs/screens.md: what tpa shows on an 80×30 terminal at two moments that matter, drawn from
// real runs of bin/tpa (build first: `npm run screens` does) under a pseudo-terminal
// (test/helpers/pty-drive.py) and a headless terminal emulator (@xterm/headless):
//  - a claim batch at its midpoint: 200 claims over HTTP to `tpa local serve`, whose rate windows run
//    on the engine clock (frozen here), so the batch stops at the window's 100 requests and waits
//    for its end, whatever the machine's speed; the screen is taken then, and the batch interrupted;
//  - `tpa fund run` at its total prompt, the screen taken when it asks for the total, then Ctrl-C
//    (nothing is sent);
//  - the approval screens at 80×24, `fund approve` at its amount to type and `fund run` at its total,
//    on the local profile and on a production profile: OAuth over mutual TLS to `tpa local serve`
//    on 127.0.0.1 (certificates made here with openssl), the same engine behind it; Ctrl-C at the
//    question, so nothing is sent.
// Usage: node scripts/screens.mjs [--out <file>]   (default docs/screens.md). Everything runs in a
// temporary TPA_HOME, removed at the end; the temporary path is shown as ~/tpa in the screens.
import { spawn, spawnSync } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import xterm from '@xterm/headless';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TPA = join(ROOT, 'bin', 'tpa');
const DRIVER = join(ROOT, 'test', 'helpers', 'pty-drive.py');
const COLS = 80;
const ROWS = 30;
const CTRL_C = '\x03';

const outIndex = process.argv.indexOf('--out');
const out = outIndex > 0 ? process.argv[outIndex + 1] : join(ROOT, 'docs', 'screens.md');

/** The environment of every run: this home, no keychain, no colour settings of the caller. */
function envOf(home, extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TPA_') && k !== 'NO_COLOR' && k !== 'FORCE_COLOR' && k !== 'CI') env[k] = v;
  // AS_USER: the home is the user's home (config and data where a user's are, ~/.local/share/tpa), not TPA_HOME.
  const where = extra.AS_USER ? { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local', 'share') } : { TPA_HOME: home };
  const { AS_USER, ...rest } = extra;
  return { ...env, ...where, TPA_KEYRING: 'off', TPA_ADJUDICATION_DELAY: '0', TERM: 'xterm-256color', ...rest };
}

/** `tpa <args>` to the end, without a terminal; fails loudly. */
function tpa(home, args, { input, env } = {}) {
  const r = spawnSync(process.execPath, [TPA, ...args], { cwd: home, env: envOf(home, env), input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tpa ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** `tpa <args>` under an 80×`rows` pty, typing `steps` (pty-drive.py's script), with its report. */
function ptyRun(home, args, steps, env = {}, rows = ROWS) {
  const script = { argv: [process.execPath, TPA, ...args], cwd: home, steps, cols: COLS, rows, step_timeout: 120, timeout: 240, env: envOf(home, env) };
  const r = spawnSync('python3', [DRIVER], { input: JSON.stringify(script), encoding: 'utf8', env: envOf(home, env), maxBuffer: 64 * 1024 * 1024 });
  const report = JSON.parse(r.stdout);
  if (report.error) throw new Error(`tpa ${args.join(' ')}: ${report.error}\n${report.output}`);
  return report;
}

/** The screen after the terminal received `raw`: its rows, trailing blanks trimmed. */
async function screenOf(raw, home, rows = ROWS) {
  const term = new xterm.Terminal({ cols: COLS, rows, allowProposedApi: true, scrollback: 0 });
  await new Promise((resolve) => term.write(raw.split(home).join('~/tpa'), resolve));
  const b = term.buffer.active;
  const lines = [];
  for (let i = 0; i < rows; i++) lines.push(b.getLine(b.viewportY + i)?.translateToString(true) ?? '');
  term.dispose();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Twelve distinct claims a day (three codes, four members) from 2026-01-01 on: `n` of them as NDJSON. */
function claims(home, n) {
  const templates = [];
  for (const cpt of ['45378', '45380', '43235'])
    for (const member of ['MBR-1001', 'MBR-1002', 'MBR-1003', 'MBR-1004'])
      templates.push(tpa(home, ['claim', 'template', '--npi', '1045782368', '--cpt', cpt, '--patient', member, '--service-date', '2026-01-01']));
  const lines = [];
  for (let i = 0; i < n; i++) {
    const day = new Date(Date.UTC(2026, 0, 1) + Math.floor(i / templates.length) * 86_400_000).toISOString().slice(0, 10);
    lines.push(JSON.stringify(JSON.parse(templates[i % templates.length].replaceAll('2026-01-01', day))));
  }
  return `${lines.join('\n')}\n`;
}

/** `tpa local serve` on a free port of 127.0.0.1; resolves with its URL and a stop function. */
function serve(home, args, env = {}) {
  const child = spawn(process.execPath, [TPA, 'local', 'serve', '--host', '127.0.0.1', '--port', '0', ...args], {
    cwd: home,
    env: envOf(home, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (d) => {
      text += d;
      if (text.includes('\n')) resolve({ url: text.split('\n')[0].trim(), stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))) });
    });
    child.on('exit', (code) => reject(new Error(`tpa local serve exited ${code}`)));
  });
}

async function batchAtMidpoint() {
  const home = mkdtempSync(join(tmpdir(), 'tpa-screens-'));
  let server;
  try {
    // The engine clock frozen at the real time: the rate window (on the engine clock) never ends
    // while the screen is taken, and the wait it announces is the real one.
    tpa(home, ['local', 'clock', 'set', new Date(Math.floor(Date.now() / 1000) * 1000).toISOString()]);
    writeFileSync(join(home, 'claims.ndjson'), claims(home, 200));
    server = await serve(home, ['--rate-clock', 'engine']);
    const key = tpa(home, ['local', 'keys', 'create']).trim();
    tpa(home, ['auth', 'login', '--env', 'sandbox', '--base-url', server.url, '--with-key-stdin'], { input: key });
    const args = ['claim', 'submit', 'claims.ndjson', '-p', 'sandbox'];
    const r = ptyRun(home, args, [{ expect: 'resuming in' }, { send: CTRL_C }, { expect: 'interrupted' }]);
    return { command: `tpa ${args.join(' ')}`, screen: await screenOf(r.raw.slice(0, r.marks[0]), home) };
  } finally {
    await server?.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

async function fundRunAtPrompt() {
  const home = mkdtempSync(join(tmpdir(), 'tpa-screens-'));
  try {
    // The home is the user's: the local engine's database shows as ~/.local/share/tpa/local.sqlite.
    const env = { AS_USER: true };
    tpa(home, ['local', 'clock', 'set', '2026-06-30T12:00:00Z'], { env });
    writeFileSync(join(home, 'claims.ndjson'), claims(home, 24));
    tpa(home, ['claim', 'submit', 'claims.ndjson', '--wait', '-o', 'ndjson'], { env });
    const args = ['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-ACME'];
    const r = ptyRun(home, args, [{ expect: 'type the total' }, { send: CTRL_C }], env);
    return { command: `tpa ${args.join(' ')}`, screen: await screenOf(r.raw.slice(0, r.marks[0]), home) };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** A private CA in `dir`: a server certificate for 127.0.0.1 and a client certificate for acme-tpa. */
function certificates(dir) {
  const ssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  ssl('req', '-x509', ...ec, '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=tpa screens CA');
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  for (const [name, subject, ext] of [
    ['server', '/CN=127.0.0.1', ['-extfile', 'san.ext']],
    ['client', '/CN=acme-tpa', []],
  ]) {
    ssl('req', ...ec, '-keyout', `${name}-key.pem`, '-out', `${name}.csr`, '-subj', subject);
    ssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', ...ext);
  }
}

/** An adjudicated four-provider encounter of `patient`: its id. */
function institutional(home, patient, env) {
  writeFileSync(
    join(home, `${patient}.json`),
    tpa(home, ['claim', 'template', '--type', 'institutional', '--patient', patient, '--service-date', '2026-06-29'], { env }),
  );
  return JSON.parse(tpa(home, ['claim', 'submit', `${patient}.json`, '--wait', '-o', 'json'], { env })).external_claim_id;
}

/** The approval screens at 80×24, on the local profile and on a production one, each at its question. */
async function approvalScreens() {
  const home = mkdtempSync(join(tmpdir(), 'tpa-screens-'));
  const rows = 24;
  // The home is the user's: the local engine's database shows as ~/.local/share/tpa/local.sqlite.
  const env = { AS_USER: true };
  const user = (args, options = {}) => tpa(home, args, { ...options, env });
  let server;
  try {
    user(['local', 'clock', 'set', '2026-06-30T12:00:00Z']);
    writeFileSync(join(home, 'claims.ndjson'), claims(home, 24));
    user(['claim', 'submit', 'claims.ndjson', '--wait', '-o', 'ndjson']);
    const mine = institutional(home, 'MBR-1003', env);
    const theirs = institutional(home, 'MBR-1002', env);
    const at = async (args, steps) => {
      const r = ptyRun(home, args, [...steps, { send: CTRL_C }], env, rows);
      return { command: `tpa ${args.join(' ')}`, screen: await screenOf(r.raw.slice(0, r.marks.at(-1)), home, rows) };
    };
    const approve = (id, profile) => at(['fund', 'approve', id, ...profile], [{ expect: '? Authorization code', send: '\r' }, { expect: 'to confirm' }]);
    const run = (profile) => at(['fund', 'run', ...profile], [{ expect: '? Authorization code prefix', send: '\r' }, { expect: 'to confirm' }]);
    const local = { approve: await approve(mine, []), run: await run([]) };
    // Production: OAuth 2.0 client credentials over mutual TLS, to the same engine served on 127.0.0.1.
    const certs = join(home, 'certs');
    mkdirSync(certs);
    certificates(certs);
    const c = (name) => join(certs, name);
    user(['local', 'clients', 'register', 'acme-tpa', '--scopes', 'contract_lookup', 'claim_pricing', 'fund_release', 'ledger_access']);
    server = await serve(home, ['--tls-cert', c('server.pem'), '--tls-key', c('server-key.pem'), '--client-ca', c('ca.pem')], env);
    user([
      'auth',
      'login',
      '--env',
      'production',
      '-p',
      'prod',
      '--base-url',
      server.url,
      '--client-id',
      'acme-tpa',
      '--cert',
      c('client.pem'),
      '--key',
      c('client-key.pem'),
      '--ca',
      c('ca.pem'),
    ]);
    const production = { approve: await approve(theirs, ['-p', 'prod']), run: await run(['-p', 'prod']) };
    return { local, production };
  } finally {
    await server?.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

const section = (title, about, { command, screen }) => `## ${title}\n\n${about}\n\n\`\`\`text\n$ ${command}\n${screen.join('\n')}\n\`\`\`\n`;

const batch = await batchAtMidpoint();
const run = await fundRunAtPrompt();
const approval = await approvalScreens();
writeFileSync(
  out,
  `# Screens

What tpa shows on an 80×30 terminal at two moments that matter, and the approval screens at 80×24
on a local and a production profile, drawn from real runs by
\`npm run screens\` (scripts/screens.mjs: bin/tpa under a pseudo-terminal, the screen drawn by a
terminal emulator). Regenerate it after changing what these commands print; the tests run the
script too (test/cli/screens.test.ts).

${section(
  'A claim batch at its midpoint',
  `Two hundred claims over HTTP to \`tpa local serve\`, whose sandbox key allows 100 claims a minute: the
batch says so when it starts, sends the first hundred, and waits for the next window inside its one
progress line (the count, the wait, the time left, and the rate where it fits), refused by the
service not once.`,
  batch,
)}
${section(
  '`fund run` at its total prompt',
  `A payment run of every adjudicated, unfunded encounter: the review, then the total to type back
before anything is released.`,
  run,
)}
## Approval screens at 80×24, local and production

Every review and confirmation that moves money names where it moves in its first line: the profile,
its environment and its host (docs/approval.md "Approval screens"). Below, the same two questions on
the local profile and on a production one. The production profile here is real (OAuth 2.0 client
credentials over mutual TLS, certificates of a private CA made for the run) but its service is
\`tpa local serve --tls-cert … --client-ca …\` on 127.0.0.1, the same engine behind it: no service
outside this machine was reached. On a colour terminal PRODUCTION is drawn in inverse bold. Each
screen is taken at the question; Ctrl-C then sends nothing.

${section('`fund approve` at its amount to type, local', "One encounter of four providers: the review, the code (the approver's reference, the next free one offered), then the amount typed as the confirmation.", approval.local.approve)}
${section('`fund approve` at its amount to type, production', 'The same question on the production profile: PRODUCTION in the first line, and in the question.', approval.production.approve)}
${section('`fund run` at its total to type, local', 'A payment run: the review with the total, the prefix of its codes, then the total typed.', approval.local.run)}
${section('`fund run` at its total to type, production', 'The same run on the production profile.', approval.production.run)}`,
);
process.stdout.write(`${out}\n`);
