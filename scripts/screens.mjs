// Writes docs/screens.md: what tpa shows on an 80×30 terminal at two moments that matter, drawn from
// real runs of bin/tpa (build first: `npm run screens` does) under a pseudo-terminal
// (test/helpers/pty-drive.py) and a headless terminal emulator (@xterm/headless):
//  - a claim batch at its midpoint: 200 claims over HTTP to `tpa local serve`, whose rate windows run
//    on the engine clock (frozen here), so the batch stops at the window's 100 requests and waits
//    for its end, whatever the machine's speed; the screen is taken then, and the batch interrupted;
//  - `tpa fund run` at its total prompt, the screen taken when it asks for the total, then Ctrl-C
//    (nothing is sent).
// Usage: node scripts/screens.mjs [--out <file>]   (default docs/screens.md). Everything runs in a
// temporary TPA_HOME, removed at the end; the temporary path is shown as ~/tpa in the screens.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
  return { ...env, TPA_HOME: home, TPA_KEYRING: 'off', TPA_ADJUDICATION_DELAY: '0', TERM: 'xterm-256color', ...extra };
}

/** `tpa <args>` to the end, without a terminal; fails loudly. */
function tpa(home, args, { input, env } = {}) {
  const r = spawnSync(process.execPath, [TPA, ...args], { cwd: home, env: envOf(home, env), input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tpa ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** `tpa <args>` under an 80×30 pty, typing `steps` (pty-drive.py's script), with its report. */
function ptyRun(home, args, steps, env = {}) {
  const script = { argv: [process.execPath, TPA, ...args], cwd: home, steps, cols: COLS, rows: ROWS, step_timeout: 120, timeout: 240, env: envOf(home, env) };
  const r = spawnSync('python3', [DRIVER], { input: JSON.stringify(script), encoding: 'utf8', env: envOf(home, env), maxBuffer: 64 * 1024 * 1024 });
  const report = JSON.parse(r.stdout);
  if (report.error) throw new Error(`tpa ${args.join(' ')}: ${report.error}\n${report.output}`);
  return report;
}

/** The screen after the terminal received `raw`: its rows, trailing blanks trimmed. */
async function screenOf(raw, home) {
  const term = new xterm.Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true, scrollback: 0 });
  await new Promise((resolve) => term.write(raw.split(home).join('~/tpa'), resolve));
  const b = term.buffer.active;
  const lines = [];
  for (let i = 0; i < ROWS; i++) lines.push(b.getLine(b.viewportY + i)?.translateToString(true) ?? '');
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

/** `tpa local serve` on a free port; resolves with its URL and a stop function. */
function serve(home, args) {
  const child = spawn(process.execPath, [TPA, 'local', 'serve', '--port', '0', ...args], { cwd: home, env: envOf(home), stdio: ['ignore', 'pipe', 'pipe'] });
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
    tpa(home, ['local', 'clock', 'set', '2026-06-30T12:00:00Z']);
    writeFileSync(join(home, 'claims.ndjson'), claims(home, 24));
    tpa(home, ['claim', 'submit', 'claims.ndjson', '--wait', '-o', 'ndjson']);
    const args = ['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-ACME'];
    const r = ptyRun(home, args, [{ expect: 'type the total' }, { send: CTRL_C }]);
    return { command: `tpa ${args.join(' ')}`, screen: await screenOf(r.raw.slice(0, r.marks[0]), home) };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const section = (title, about, { command, screen }) => `## ${title}\n\n${about}\n\n\`\`\`text\n$ ${command}\n${screen.join('\n')}\n\`\`\`\n`;

const batch = await batchAtMidpoint();
const run = await fundRunAtPrompt();
writeFileSync(
  out,
  `# Screens

What tpa shows on an 80×30 terminal at two moments that matter, drawn from real runs by
\`npm run screens\` (scripts/screens.mjs: bin/tpa under a pseudo-terminal, the screen drawn by a
terminal emulator). Regenerate it after changing what these commands print; the tests run the
script too (test/cli/screens.test.ts).

${section(
  'A claim batch at its midpoint',
  `Two hundred claims over HTTP to \`tpa local serve\`, whose sandbox key allows 100 claims a minute: the
batch says so when it starts, sends the first hundred, and waits for the next window inside its one
progress line (the count, the rate, the wait, the time left), refused by the service not once.`,
  batch,
)}
${section(
  '`fund run` at its total prompt',
  `A payment run of every adjudicated, unfunded encounter: the review, then the total to type back
before anything is released.`,
  run,
)}`,
);
process.stdout.write(`${out}\n`);
