import { readdirSync, readFileSync } from 'node:fs';
import { fullProgram } from '../../helpers/program.js';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELP_TOPICS } from '../../../src/cli/commands/help/index.js';
import { manPages } from '../../../src/cli/commands/help/man.js';
import { useTpaHome } from '../../helpers/cli.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const home = useTpaHome(beforeAll, afterAll);
const run = home.run;

async function generated() {
  return manPages(await fullProgram());
}

/** The variables src/ reads: env.X, process.env.X, and commander's .env('X'). */
function variablesRead(): string[] {
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
  const names = new Set<string>();
  for (const file of files(join(root, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\benv\??\.([A-Z][A-Z0-9_]+)|\.env\('([A-Z][A-Z0-9_]+)'\)/g)) names.add((m[1] ?? m[2])!);
  }
  return [...names].sort();
}

describe('man pages', () => {
  it('the pages in man/ and package.json "man" are those the command tree generates now (run `npm run completions` after changing commands)', async () => {
    const pages = await generated();
    const onDisk = readdirSync(join(root, 'man')).filter((f) => f.endsWith('.1'));
    expect(onDisk.sort()).toEqual(pages.map((p) => p.file).sort());
    for (const page of pages) expect(readFileSync(join(root, 'man', page.file), 'utf8'), `man/${page.file} is stale`).toBe(page.text);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { man: string[]; files: string[] };
    expect(pkg.man).toEqual(pages.map((p) => `./man/${p.file}`));
    expect(pkg.files).toContain('man');
  });

  it('one page per command, each with its name, synopsis, options, exit status and neighbours', async () => {
    const pages = new Map((await generated()).map((p) => [p.file, p.text]));
    for (const file of ['tpa.1', 'tpa-fund.1', 'tpa-fund-approve.1', 'tpa-local-clock-advance.1', 'tpa-completion.1']) expect(pages.has(file), file).toBe(true);
    for (const [file, text] of pages) {
      for (const section of ['NAME', 'SYNOPSIS', 'DESCRIPTION', 'OPTIONS', 'EXIT STATUS', 'SEE ALSO'])
        expect(text, `${file} ${section}`).toContain(`\n.SH ${section}\n`);
      // Nothing the text says may be read as a request: only our own lines start with a dot.
      for (const line of text.split('\n')) if (/^[.']/.test(line)) expect(line, file).toMatch(/^(\.\\" |\.(TH|SH|TP|PP|nf|fi|RS|RE|br|nh|ad|BR) ?)/);
    }
    const approve = pages.get('tpa-fund-approve.1')!;
    expect(approve).toContain('.SH NAME\ntpa\\-fund\\-approve \\- release the adjudicated benefit');
    expect(approve).toContain('\\fBtpa fund approve\\fR [options] <encounter_id>');
    expect(approve).toContain('\\fB\\-\\-auth\\-code\\fR \\fI<code>\\fR');
    expect(approve).toContain('.SH GLOBAL OPTIONS\n.TP\n\\fB\\-p, \\-\\-profile\\fR \\fI<name>\\fR');
    expect(approve).toContain('.SH EXAMPLES\n.nf\n.RS 4\n$ tpa fund approve enc_3b302036a412ed8b301f\n');
    expect(approve).toContain('.BR tpa (1),\n.BR tpa\\-fund (1),\n.BR tpa\\-fund\\-run (1)');
    // The page of tpa carries the help topics, in the same words as `tpa help <topic>`.
    const tpa = pages.get('tpa.1')!;
    for (const topic of HELP_TOPICS) {
      expect(tpa).toContain(`\n.SH ${topic.manSection}\n`);
      for (const [term] of topic.items) expect(tpa).toContain(`.TP\n\\fB${term.replace(/-/g, '\\-')}\\fR\n`);
    }
    expect(tpa).toContain('.BR tpa\\-fund (1)');
  });
});

describe('tpa help', () => {
  it("tpa help <command words> prints that command's help, tpa help the root's", async () => {
    const help = await run(['help', 'fund', 'approve']);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe((await run(['fund', 'approve', '--help'])).stdout);
    expect(help.stdout).toMatch(/^Usage: tpa fund approve \[options\] <encounter_id>/);
    const clock = await run(['help', 'local', 'clock', 'advance']);
    expect(clock.stdout).toBe((await run(['local', 'clock', 'advance', '--help'])).stdout);
    const rootHelp = await run(['help']);
    expect(rootHelp.code).toBe(0);
    expect(rootHelp.stdout).toBe((await run(['--help'])).stdout);
    expect(rootHelp.stdout.replace(/\s+/g, ' ')).toContain(
      'help [topic...] help for a command (tpa help fund approve), or a topic: exit-codes, environment, formats',
    );
  });

  it('tpa help exit-codes gives the meaning of every exit code', async () => {
    const r = await run(['help', 'exit-codes']);
    expect(r.code).toBe(0);
    for (const code of [0, 1, 2, 3, 4, 5, 6, 7, 8]) expect(r.stdout).toMatch(new RegExp(`^  ${code}  \\S`, 'm'));
    expect(r.stdout).toMatch(/^ {2}4 {2}conflict or wrong state/m);
  });

  it('tpa help environment names every variable tpa reads', async () => {
    const r = await run(['help', 'environment']);
    expect(r.code).toBe(0);
    const read = variablesRead();
    expect(read).toContain('TPA_DB_KEY');
    for (const name of read) expect(r.stdout, name).toMatch(new RegExp(`^  ${name} `, 'm'));
  });

  it('tpa help formats describes each output format', async () => {
    const r = await run(['help', 'formats']);
    expect(r.code).toBe(0);
    for (const format of ['table', 'json', 'ndjson', 'csv']) expect(r.stdout).toMatch(new RegExp(`^  ${format} +\\S`, 'm'));
    // --template: every function a template knows, print and println among them.
    const { parseTemplate } = await import('../../../src/render/template.js');
    const said = r.stdout.replace(/\s+/g, ' ');
    for (const name of ['printf', 'print', 'println', 'join', 'pluck', 'truncate', 'tablerow', 'tablerender', 'json', 'len', 'index', 'not']) {
      expect(() => parseTemplate(`{{${name} 1}}`), name).not.toThrow(/unknown function/);
      expect(said, name).toMatch(new RegExp(`[ ,]${name}[,\\s]`));
    }
  });

  it('a word that is neither a command nor a topic is a usage error naming the topics', async () => {
    const r = await run(['help', 'exit-code']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/no command or help topic "exit-code"/);
    expect(r.stderr).toMatch(/tpa help exit-codes/);
  });
});
