// The completion scripts run in the real shells: bash calls the completion function as readline
// would, fish answers `complete -C`, and zsh completes at its own line editor under a pty, each match
// recorded as its compadd adds it. Every enumerated value of the tree (option values, argument
// choices, help topics) and file names where a command takes a file are checked in all three.
import { fullProgram } from '../../helpers/program.js';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { commandTree } from '../../../src/cli/commands/completion/scripts.js';
import { HELP_TOPICS } from '../../../src/cli/commands/help/index.js';
import { tempDir } from '../../helpers/engine.js';

const completions = fileURLToPath(new URL('../../../completions/', import.meta.url));
const DRIVER = fileURLToPath(new URL('../../helpers/pty-drive.py', import.meta.url));

interface Query {
  /** The command line typed, the last word being completed. */
  line: string;
  /** Every one of these is offered. */
  offers: readonly string[];
  /** Nothing else is offered (else: at least these). */
  exactly: boolean;
}

async function tree() {
  return commandTree(await fullProgram());
}

/** Every enumerated value in the tree, as a line to complete, and the file names. */
async function queries(): Promise<Query[]> {
  const out: Query[] = [];
  for (const node of await tree()) {
    const words = node.path.join(' ');
    for (const option of node.options) {
      if (option.values.length === 0) continue;
      const flag = option.flags.find((f) => f.startsWith('--')) ?? option.flags[0]!;
      out.push({ line: `tpa ${words ? `${words} ` : ''}${flag} `, offers: option.values, exactly: true });
    }
    if (node.argumentValues.length > 0) out.push({ line: `tpa ${words} `, offers: node.argumentValues, exactly: true });
  }
  const files = ['claim.json', 'claims/'];
  for (const line of [
    'tpa claim submit cl',
    'tpa claim validate cl',
    'tpa claim submit encounter.json cl',
    'tpa fund run --journal cl',
    'tpa --ca-file cl',
    'tpa ledger list --ca-file cl',
    'tpa local serve --tls-cert cl',
    'tpa ratesheet import BLD-1001 cl',
  ])
    out.push({ line, offers: files, exactly: true });
  out.push({ line: 'tpa claim submit claims/', offers: ['claims/claim-1.json'], exactly: true });
  // Where no file is taken, none is offered.
  out.push({ line: 'tpa ledger show cl', offers: [], exactly: true });
  return out;
}

/** A folder to complete file names in: claim.json, claims/claim-1.json, other.txt. */
function workDir(): string {
  const dir = tempDir().dir;
  mkdirSync(join(dir, 'claims'));
  writeFileSync(join(dir, 'claim.json'), '{}');
  writeFileSync(join(dir, 'claims', 'claim-1.json'), '{}');
  writeFileSync(join(dir, 'other.txt'), '');
  return dir;
}

/** Folders end with a slash, and a file under a folder is named from the folder. */
function normalized(line: string, matches: string[], dir: string): string[] {
  const typed = line.split(' ').at(-1)!;
  const folder = typed.includes('/') ? typed.slice(0, typed.lastIndexOf('/') + 1) : '';
  return [
    ...new Set(
      matches.map((m) => {
        const full = folder && !m.startsWith(folder) ? `${folder}${m}` : m;
        if (full.endsWith('/')) return full;
        return statSync(join(dir, full), { throwIfNoEntry: false })?.isDirectory() ? `${full}/` : full;
      }),
    ),
  ].sort();
}

function check(shell: string, qs: Query[], got: Map<string, string[]>, dir: string): void {
  for (const q of qs) {
    const offered = normalized(q.line, got.get(q.line) ?? [], dir);
    if (q.exactly) expect(offered, `${shell}: ${q.line}<Tab>`).toEqual([...q.offers].sort());
    else for (const v of q.offers) expect(offered, `${shell}: ${q.line}<Tab>`).toContain(v);
  }
}

const MARK = '### ';
let qs: Query[];
let dir: string;

beforeAll(async () => {
  qs = await queries();
  dir = workDir();
});

describe('completions in the real shells', () => {
  it('the tree has enumerated values to check (settlement report --section, help topics, -o)', () => {
    const lines = qs.map((q) => q.line);
    expect(lines).toContain('tpa settlement report --section ');
    expect(lines).toContain('tpa --output ');
    expect(qs.find((q) => q.line === 'tpa help ')?.offers).toEqual(expect.arrayContaining(HELP_TOPICS.map((t) => t.name)));
    expect(qs.length).toBeGreaterThan(25);
  });

  it('bash completes every enumerated value, and file names where a file is taken', () => {
    const calls = qs
      .map((q) => {
        const words = q.line.split(' ');
        return `printf '%s\\n' ${JSON.stringify(MARK + q.line)}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _tpa 2>/dev/null; for m in "\${COMPREPLY[@]}"; do printf '%s\\n' "$m"; done`;
      })
      .join('\n');
    const r = spawnSync('bash', ['--norc', '--noprofile', '-c', `source ${JSON.stringify(join(completions, 'tpa.bash'))}\n${calls}`], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    check('bash', qs, parse(r.stdout), dir);
  });

  it('fish completes every enumerated value, and file names where a file is taken', () => {
    const calls = qs.map((q) => `echo ${fishQuote(MARK + q.line)}; complete -C ${fishQuote(q.line)}`).join('\n');
    const r = spawnSync('fish', ['--no-config', '-c', `source ${fishQuote(join(completions, 'tpa.fish'))}\n${calls}`], { cwd: dir, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    // A candidate, then a tab and its description.
    const got = parse(r.stdout);
    for (const [k, v] of got)
      got.set(
        k,
        v.map((m) => m.split('\t')[0]!),
      );
    check('fish', qs, got, dir);
  });

  it('zsh completes every enumerated value at its line editor, and file names where a file is taken', async () => {
    const home = join(dir, '.zdot');
    mkdirSync(home, { recursive: true });
    const log = join(home, 'matches.log');
    writeFileSync(log, '');
    // What compadd adds, filtered by what was typed as zsh filters it, is written down with the line.
    writeFileSync(
      join(home, '.zshrc'),
      `autoload -U compinit && compinit -u -d ${JSON.stringify(join(home, '.zcompdump'))}
source ${JSON.stringify(join(completions, '_tpa'))}
unsetopt autolist
setopt nobeep
compadd() {
  local -a __m
  builtin compadd -O __m "$@"
  local m
  for m in "\${__m[@]}"; do print -r -- "$BUFFER"$'\\t'"$m" >> ${JSON.stringify(log)}; done
  builtin compadd "$@"
}
PS1='READY> '
`,
    );
    const steps: { expect?: string; send?: string | string[] }[] = [{ expect: 'READY> ' }];
    qs.forEach((q, i) => {
      // Tab, then the line is killed and a number echoed: once it is seen, that completion is over.
      steps.push({ send: [`${q.line}\t`, '\u0015', `echo $((${i}+70000))\r`] }, { expect: String(i + 70000) });
    });
    steps.push({ send: 'exit\r' });
    const report = spawnSync('python3', [DRIVER], {
      input: JSON.stringify({
        argv: ['zsh', '-i'],
        cwd: dir,
        env: { ZDOTDIR: home, TERM: 'xterm' },
        cols: 120,
        rows: 40,
        steps,
        step_timeout: 60,
        timeout: 300,
      }),
      encoding: 'utf8',
    });
    const r = JSON.parse(report.stdout) as { exit_code: number | null; error: string | null; output: string };
    expect(r.error, r.output.slice(-2000)).toBeNull();
    const got = new Map<string, string[]>();
    for (const row of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
      const [line, match] = row.split('\t') as [string, string];
      got.set(line, [...(got.get(line) ?? []), match]);
    }
    check('zsh', qs, got, dir);
  });
});

function fishQuote(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Output of `### <line>` headers, each followed by its matches. */
function parse(text: string): Map<string, string[]> {
  const got = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith(MARK)) got.set(line.slice(MARK.length), (current = []));
    else if (line !== '' && current) current.push(line);
  }
  return got;
}
