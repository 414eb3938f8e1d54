// Every example a user is shown runs as printed: the `tpa …` lines of the README's code blocks, in
// order, then every command's `--help` examples (the command tree's, in the order `tpa --help`
// lists the commands), all in one fresh TPA_HOME and one working folder, as a user following the
// README and then trying each command's help would. Each must exit 0, or the code its refusal is
// documented with (EXPECTED); an example that cannot run here is EXCEPTED with the reason. A new
// example that does not run fails this test until it runs, or is listed with its reason. And what
// runs is what is printed: each --help at 80 columns shows its examples so that a shell, reading
// the lines as pasted, reads back the example (a long one continued after a backslash, its comment
// never continued so, since a shell would then run the comment's next line as a command).
//
// The rules, the only things not taken as printed:
// - The engine clock is first set to 2026-11-26 15:00 (a Thursday; the dates of the examples, such
//   as AUTH-20261126-ACME-0001 and --from 2026-11-01, are of that month), so that the encounters
//   numbered ENC-2026-… exist whatever year the test runs in.
// - An id of the form the service gives (enc_, sub_, tr_ or key_ and hex digits, as
//   enc_3b302036a412ed8b301f) stands for "an id of that kind": it is replaced by the latest id of
//   that kind an earlier example printed. So does a claim batch's job id (claims- and 16 hex
//   digits, as claims-3f2a9c01d4e5b6a7), which is made of the full paths of its files and so differs
//   from one machine to the next. Contract, builder and member ids are the seed's, and a payment
//   run's job id (fund-run-<prefix>-<12 hex digits>) is made of the profile and the prefix, the
//   same on every machine: they are taken as printed.
// - `tpa local clock real` runs after every other example but the two below: it hands the engine
//   clock back to the present, where every transfer of the examples' November has long arrived
//   (the examples of `tpa local simulate` need one still in transit).
// - `tpa local reset` runs last: it starts again from the seed, where no later example would find
//   what the earlier ones made; then `tpa local clock set`, which cannot set the clock back before
//   what the engine recorded (in the fresh engine of a reset it can).
// - `tpa` is the project's bin/tpa (on the PATH for lines that need a shell: pipes, loops, `&&`).
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../src/cli/program.js';
import { type Entry, isGroup } from '../../src/cli/verb.js';
import { runTpa, TPA_BIN, testEnv } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';

const README = join(import.meta.dirname, '..', '..', 'README.md');

/** The `tpa …` lines (and shell lines that run tpa) of the README's sh code blocks, in order. */
function readmeExamples(): string[] {
  const text = readFileSync(README, 'utf8');
  const lines: string[] = [];
  for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g))
    for (const line of block[1]!.split('\n')) if (/\btpa /.test(line) && !/^\s*#/.test(line) && !/^\s*npm /.test(line)) lines.push(line.trim());
  return lines;
}

/** Every verb's examples, with the command it belongs to, in the order of the tree. */
async function treeExamples(): Promise<{ command: string; example: string }[]> {
  const out: { command: string; example: string }[] = [];
  const walk = (path: string[], e: Entry) => {
    if (isGroup(e)) for (const v of e.verbs) walk([...path, e.name], v);
    else for (const example of e.examples) out.push({ command: [...path, e.name].join(' '), example });
  };
  for (const root of ROOT) {
    const { verbs } = await root.load();
    for (const v of verbs) walk(root.kind === 'verb' ? [] : [root.name], v);
  }
  return out;
}

/** Examples that exit with another code than 0 on purpose: the code, and the documented refusal. */
const EXPECTED: Record<string, [number, RegExp]> = {
  // Moving money needs a terminal to confirm on, or --yes with the amount (the total) given.
  'tpa fund approve ENC-2026-000001             # or its id, enc_…, as claim submit printed it': [2, /without a terminal/],
  'tpa fund run                                 # the summary last, a free prefix offered, the total typed': [2, /without a terminal/],
  'tpa fund approve ENC-2026-000002': [2, /without a terminal/],
  'tpa fund approve enc_3b302036a412ed8b301f': [2, /without a terminal/],
  'tpa fund run --from 2026-11-01 --to 2026-11-30': [2, /without a terminal/],
  'tpa ratesheet finalize BLD-1001': [2, /without a terminal|--yes/],
  'tpa local reset': [2, /--yes/],
  'tpa local keys revoke key_3b302036a412ed8b': [2, /--yes|terminal/],
  'tpa local clients revoke reports-only': [2, /--yes|terminal/],
  // The claim of the example before it (the same template, the same day), refused as sent before
  // and nothing sent; --again sends it as a new claim.
  'tpa claim submit claim.json --wait -o json': [4, /the same claim was submitted before/],
  'tpa claim template | tpa claim submit - --wait --timeout 2m': [4, /the same claim was submitted before/],
  // The claim of claims.837 that claim convert's example converted and sent.
  'tpa claim submit bundle.json --wait   # a FHIR Bundle: its Claim entries': [4, /the same claim was submitted before/],
  // A payment run that the sandbox's TPA_FAULT stops at its first approval: a network failure, exit
  // 8, the run left open with its approvals left (the next example continues, or closes, it).
  'TPA_FAULT=drop:/funding/approve/ tpa fund run -p local --to 2026-11-26 --auth-code-prefix AUTH-20261127-ACME3 --expect-total 340.00 --journal run.journal --yes   # the sandbox drops its approval: stopped (exit 8)':
    [8, /stopped: .*simulated by TPA_FAULT.*continue with: tpa fund run --journal \S*run\.journal/],
  'TPA_FAULT=drop:/funding/approve/ tpa fund run -p local --auth-code-prefix AUTH-20261127-ACME4 --expect-total 320.00 --yes   # the sandbox drops its approval: stopped (exit 8), open':
    [8, /stopped: .*simulated by TPA_FAULT/],
};

/** Examples not run here, each with the reason: each needs what this test cannot give. */
const EXCEPTED: Record<string, string> = {
  // A server that runs until it is stopped, in another terminal: test/http starts it on a free port.
  'tpa local serve --port 4010                  # another terminal: the engine behind HTTP, keys, limits':
    'a server in another terminal, on a fixed port (test/http runs local serve on a free one)',
  'tpa local serve --port 4010': 'a server in another terminal (test/http)',
  'tpa local serve --port 0 --no-rate-limit': 'a server in another terminal (test/http)',
  'tpa local serve --port 8443 --tls-cert server.pem --tls-key server-key.pem --client-ca clients-ca.pem':
    'a server, with certificates made by openssl (test/tls)',
  'tpa local serve --host 0.0.0.0 --port 8443 --tls-cert server.pem --tls-key server-key.pem --tls-min 1.2':
    'a server on every interface, with certificates (test/tls)',
  // Profiles of a server that the lines above start.
  'tpa local keys create | tpa auth login --env sandbox --base-url http://127.0.0.1:4010 --with-key-stdin':
    'needs the local serve of the line before (test/http logs in)',
  'tpa health -p sandbox                        # then -p sandbox on any command': 'needs the sandbox profile of a running server',
  'tpa local keys create | tpa auth login --env sandbox --base-url https://127.0.0.1:8443 --with-key-stdin --ca ca.pem   # a shared sandbox, its private CA kept':
    'a TLS server and its private CA (test/cli/sharing-sandbox.test.ts logs in so)',
  'tpa auth login --env sandbox --base-url http://127.0.0.1:4010 --set-default': 'asks for a key at a prompt, of a running server',
  'tpa auth login --env production --base-url https://127.0.0.1:8443 --client-id acme-tpa --cert client.pem --key client-key.pem --ca ca.pem':
    'a mutual-TLS server and its certificates (test/tls)',
  'tpa auth status -p sandbox': 'needs the sandbox profile of a running server',
  'tpa auth logout -p sandbox': 'needs the sandbox profile of a running server',
  'tpa auth keys -p sandbox': 'needs the sandbox profile of a running server',
  'tpa auth rotate -p sandbox': 'needs the sandbox profile of a running server',
  'tpa health -p sandbox': 'needs the sandbox profile of a running server',
  'tpa config get profiles.sandbox.base_url': 'needs the sandbox profile of auth login',
  // Into the user's shell configuration (test/cli/completion/shells.test.ts runs the scripts).
  'tpa completion bash > ~/.local/share/bash-completion/completions/tpa   # bash, with bash-completion': "writes into the user's shell setup",
  'tpa completion zsh > "${fpath[1]}/_tpa"                                # zsh, with compinit': "writes into the user's zsh setup (zsh's fpath)",
  'tpa completion fish > ~/.config/fish/completions/tpa.fish              # fish': "writes into the user's shell setup",
  'tpa completion bash > ~/.local/share/bash-completion/completions/tpa': "writes into the user's shell setup",
  'tpa completion zsh > "${fpath[1]}/_tpa"': "writes into the user's zsh setup (zsh's fpath)",
  'tpa completion fish > ~/.config/fish/completions/tpa.fish': "writes into the user's shell setup",
  // An editor, a machine's mount: not this test's to give.
  'tpa jobs show claims-3f2a --failed-to fix.ndjson && $EDITOR fix.ndjson && tpa claim submit fix.ndjson': 'opens an editor ($EDITOR)',
  'tpa local audit verify --expect-head "$(cat /mnt/anchor/tpa-head)"   # a head kept on another machine': 'reads a head kept on another machine (/mnt/anchor)',
  // The config of a profile that a server's login makes: the default made a profile no server is
  // behind, every later example would fail to connect.
  'tpa config set default_profile sandbox': 'makes the sandbox profile of auth login (excepted above) the default',
  // The demo runs on a scratch copy and is tested on its own (test/cli/demo/demo.test.ts).
  'tpa demo': 'its own test (test/cli/demo/demo.test.ts), and 10 seconds',
  'tpa demo -o json | jq .adjudication': 'its own test (test/cli/demo/demo.test.ts)',
  // Encrypting changes the database every later example reads (test/cli/storage.test.ts).
  'tpa local init --encrypt': 'asks for a passphrase at a terminal, and encrypts the database the other examples use (test/cli/storage.test.ts)',
  'TPA_DB_KEY=$(openssl rand -hex 32) tpa local init --encrypt': 'encrypts the database the other examples use with a key then lost (test/cli/storage.test.ts)',
  'tpa local encrypt': 'asks for a passphrase at a terminal (test/cli/storage.test.ts)',
};

let home: ReturnType<typeof tempDir>;
let work: ReturnType<typeof tempDir>;
let bin: ReturnType<typeof tempDir>;
beforeAll(() => {
  home = tempDir();
  work = tempDir();
  bin = tempDir();
  writeFileSync(join(bin.dir, 'tpa'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(TPA_BIN)} "$@"\n`);
  chmodSync(join(bin.dir, 'tpa'), 0o755);
});
afterAll(() => {
  home.remove();
  work.remove();
  bin.remove();
});

/** The latest id of each kind printed so far. */
const latest = new Map<string, string>();
const ID = /\b(enc|sub|tr|key)_[0-9a-f]{12,}\b|\b(claims)-[0-9a-f]{16}\b/g;

function withIds(line: string): string {
  return line.replace(ID, (id, kind?: string, job?: string) => latest.get((kind ?? job)!) ?? id);
}

/** Words of a command line without shell features, or undefined when it needs a shell. */
function simpleWords(line: string): { words: string[]; out?: string } | undefined {
  const code = line.replace(/\s+#.*$/, '');
  const m = /^(tpa(?: [^|&;<>$`()"'\\*?~{}]+)?)(?: > ([\w./-]+))?$/.exec(code);
  if (!m) return undefined;
  return { words: m[1]!.split(/\s+/).slice(1), ...(m[2] ? { out: m[2] } : {}) };
}

async function runExample(line: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const simple = simpleWords(line);
  if (simple) {
    const r = await runTpa(simple.words, { home: home.dir, cwd: work.dir });
    if (simple.out !== undefined) writeFileSync(join(work.dir, simple.out), r.stdout);
    return r;
  }
  const env = testEnv({ home: home.dir });
  env.PATH = `${bin.dir}:${env.PATH}`;
  env.HOME = home.dir;
  const r = spawnSync('sh', ['-c', line], { cwd: work.dir, env, encoding: 'utf8', input: '', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('every example runs as printed', () => {
  it('the Quick start is the two lines, install and demo, then the tests', () => {
    const quick = /## Quick start\n\n```sh\n([\s\S]*?)```/.exec(readFileSync(README, 'utf8'))?.[1];
    expect(quick).toBe('npm install && npx tpa demo\nnpm test\n');
  });

  it('the README, then every command’s --help examples, in order, in one home', { timeout: 600_000 }, async () => {
    const set = await runTpa(['local', 'clock', 'set', '2026-11-26T15:00:00Z'], { home: home.dir, cwd: work.dir });
    expect(set.code, set.stderr).toBe(0);
    const all = [...readmeExamples().map((example) => ({ command: 'README', example })), ...(await treeExamples())];
    const resets = (e: { example: string }) => /^tpa local reset\b/.test(e.example);
    const clockSets = (e: { example: string }) => /^tpa local clock set\b/.test(e.example);
    const clockReal = (e: { example: string }) => /^tpa local clock real\b/.test(e.example);
    const last = (e: { example: string }) => resets(e) || clockSets(e) || clockReal(e);
    const examples = [...all.filter((e) => !last(e)), ...all.filter(clockReal), ...all.filter(resets), ...all.filter(clockSets)];
    expect(examples.length).toBeGreaterThan(100);
    const failed: string[] = [];
    const used = new Set<string>();
    for (const { command, example } of examples) {
      if (EXCEPTED[example] !== undefined) {
        used.add(example);
        continue;
      }
      const line = withIds(example);
      const r = await runExample(line);
      for (const m of `${r.stdout}\n${r.stderr}`.matchAll(ID)) latest.set((m[1] ?? m[2])!, m[0]);
      const expected = EXPECTED[example];
      if (expected) used.add(example);
      const [code, why] = expected ?? [0, undefined];
      if (r.code !== code || (why && !why.test(r.stderr)))
        failed.push(`${command}: ${line}\n  exit ${r.code} (expected ${code})\n  ${r.stderr.trim().split('\n').slice(-3).join('\n  ')}`);
    }
    expect(failed, failed.join('\n\n')).toEqual([]);
    // Every exception names an example that exists: a stale one would hide nothing, but mislead.
    expect([...Object.keys(EXCEPTED), ...Object.keys(EXPECTED)].filter((e) => !used.has(e))).toEqual([]);
  });

  it('each --help prints its examples so that a shell reads back the example, at 80 columns', async () => {
    const byCommand = new Map<string, string[]>();
    for (const { command, example } of await treeExamples()) byCommand.set(command, [...(byCommand.get(command) ?? []), example]);
    const wrong: string[] = [];
    for (const [command, examples] of byCommand) {
      const r = await runTpa([...command.split(' '), '--help'], { home: home.dir, env: { COLUMNS: '80' } });
      expect(r.code, command).toBe(0);
      const section = /\nExamples:\n([\s\S]*?)(?:\n\n|$)/.exec(r.stdout)?.[1] ?? '';
      const printed: string[][] = [];
      for (const line of section.split('\n')) {
        if (/^\s*\$ /.test(line)) printed.push([line.replace(/^\s*\$ /, '')]);
        else printed.at(-1)?.push(line.trim());
      }
      expect(printed.length, command).toBe(examples.length);
      printed.forEach((lines, i) => {
        const read = shellReads(lines);
        const want = examples[i]!.replace(/\s+/g, ' ').trim();
        if (read !== want) wrong.push(`tpa ${command} --help:\n  ${lines.join('\n  ')}\n  reads as: ${read}\n  not: ${want}`);
      });
    }
    expect(wrong, wrong.join('\n\n')).toEqual([]);
  });
});

/**
 * What a shell reads from the lines of a printed example: the command, its lines joined where one
 * ends in " \\" outside a comment (in a comment the backslash is text, and the next line would run as
 * a command of its own: read so here), then its comment, from the lines after it that are comments.
 * A line after the command that is not a comment is a second command, read as one, after a ";".
 */
function shellReads(lines: readonly string[]): string {
  let text = '';
  let comment = '';
  let inCommand = true;
  for (const line of lines) {
    const hash = unquotedHash(line);
    const code = hash < 0 ? line : line.slice(0, hash).trimEnd();
    if (!inCommand && hash === 0) {
      comment += ` ${line.replace(/^#\s*/, '')}`;
      continue;
    }
    if (!inCommand) text += ' ;';
    if (hash >= 0) comment += ` ${line.slice(hash).replace(/^#\s*/, '')}`;
    const continued = hash < 0 && code.endsWith(' \\');
    text += ` ${continued ? code.slice(0, -2) : code}`;
    inCommand = continued;
  }
  const read = `${text.trim()}${comment ? ` # ${comment.trim()}` : ''}`;
  return read.replace(/\s+/g, ' ').trim();
}

/** Where a comment starts in a line of shell (a # that begins a word, outside quotes), or -1. */
function unquotedHash(line: string): number {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return i;
  }
  return -1;
}
