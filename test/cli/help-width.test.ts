import type { Command } from 'commander';
import { fullProgram } from '../helpers/program.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manPages } from '../../src/cli/commands/help/man.js';
import { subcommands } from '../../src/cli/commands/completion/scripts.js';
import { runTpa, useTpaHome } from '../helpers/cli.js';

const home = useTpaHome(beforeAll, afterAll);

async function tree(): Promise<Command> {
  return fullProgram();
}

/** Every command's words, the root's (none) first. */
function paths(cmd: Command, path: string[] = []): string[][] {
  return [path, ...subcommands(cmd).flatMap((sub) => paths(sub, [...path, sub.name()]))];
}

/** The global options: the root's help describes each under Options, `tpa help global-options` too. */
const GLOBAL = [
  '-p, --profile <name>',
  '-o, --output <format>',
  '--json [fields]',
  '--jq <expression>',
  '--template <string>',
  '--no-color',
  '--debug',
  '--ca-file <file>',
  '-y, --yes',
  '--no-pager',
];
/** The same options as a command's help names them, by their flags alone. */
const FLAGS = ['-p, --profile', '-o, --output', '--json', '--jq', '--template', '--no-color', '--debug', '--ca-file', '-y, --yes', '--no-pager'];

function inheritedSection(help: string): string {
  const m = /\nInherited flags:\n([\s\S]*?)(?:\n\n|$)/.exec(help);
  return m ? m[1]! : '';
}

describe('help output', () => {
  it("every command's --help fits 80 columns (and a wider terminal's help too) and names the global options once, compactly, as inherited flags", async () => {
    const all = paths(await tree());
    expect(all.length).toBeGreaterThan(50);
    for (const columns of [80, 120]) {
      for (const path of all) {
        const where = `tpa ${path.join(' ')} --help at ${columns} columns`;
        const r = await runTpa([...path, '--help'], { home: home.dir, tty: true, columns });
        expect(r.code, where).toBe(0);
        const wide = r.stdout.split('\n').filter((line) => line.length > 80);
        expect(wide, where).toEqual([]);
        if (path.length === 0) {
          // The root's own options are the global ones: described once, under Options.
          for (const flags of GLOBAL) expect(r.stdout, where).toContain(`  ${flags}`);
          expect(r.stdout).not.toContain('Inherited flags:');
        } else {
          // A command's help names them by their flags in at most four lines, and says where each is described.
          const section = inheritedSection(r.stdout);
          expect(section.split('\n').length, where).toBeLessThanOrEqual(4);
          for (const flags of FLAGS) expect(section, `${where}: ${flags}`).toContain(flags);
          expect(section, where).toContain('(tpa help global-options)');
          expect(r.stdout, where).not.toContain('Global options:');
          expect(r.stdout, where).not.toContain('confirm without asking');
        }
      }
    }
  });

  it('tpa help global-options describes every global option, within 80 columns', async () => {
    const r = await runTpa(['help', 'global-options'], { home: home.dir, tty: true, columns: 80 });
    expect(r.code, r.stderr).toBe(0);
    for (const flags of GLOBAL) expect(r.stdout).toContain(`  ${flags}`);
    expect(r.stdout).toMatch(/-y, --yes\s+confirm without asking/);
    expect(r.stdout.split('\n').filter((line) => line.length > 80)).toEqual([]);
  });

  it('piped help (COLUMNS=80, no terminal) fits 80 columns too, examples included', async () => {
    for (const path of [[], ['fund', 'approve'], ['claim', 'submit'], ['ledger', 'list'], ['local', 'serve']]) {
      const r = await runTpa([...path, '--help'], { home: home.dir, env: { COLUMNS: '80' } });
      expect(r.code).toBe(0);
      expect(
        r.stdout.split('\n').filter((line) => line.length > 80),
        `tpa ${path.join(' ')} --help`,
      ).toEqual([]);
    }
    // A long example is continued on the next line with a backslash, still a command to copy.
    const approve = await runTpa(['fund', 'approve', '--help'], { home: home.dir });
    expect(approve.stdout).toMatch(/\$ tpa fund approve ENC-2026-000002 --amount 284\.00 [^\n]*\\\n\s+\S/);
  });

  it('each man page lists the global options, examples joined back into one command each', async () => {
    const pages = manPages(await tree());
    for (const page of pages.slice(1)) {
      expect(page.text, page.file).toMatch(/\.SH GLOBAL OPTIONS\n[\s\S]*\\-\\-yes[\s\S]*\.SH /);
    }
    const approve = pages.find((p) => p.file === 'tpa-fund-approve.1')!.text;
    const examples = /\.SH EXAMPLES\n([\s\S]*?)\.SH/.exec(approve)![1]!;
    // Each example starts with "$ " on its line; a continued one goes on indented, not as "$ ".
    expect(examples).toMatch(/\$ tpa fund approve ENC\\-2026\\-000002 \\-\\-amount 284\.00 [^\n]*\\e\n\s+\S/);
    expect(examples.split('\n').filter((l) => l.startsWith('$ ')).length).toBe(3);
  });
});
