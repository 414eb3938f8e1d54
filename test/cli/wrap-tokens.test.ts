// At 80 columns, tpa never puts a line break inside a token (docs/design.md "Nothing is broken
// across lines"): a journal's path, the command that continues a run and the audit hash are each
// whole on one line of a payment run's output, in its summary (label and value) and in its notes,
// with a home as short as `mktemp -d` makes, where a path just fits a line but not beside a label.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';

const env = { TPA_CLOCK: '2026-06-30T12:00:00Z', NO_COLOR: '1' };
let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: home, remove: cleanup } = tempDir());
});
afterEach(() => cleanup());

/** What a terminal keeps of the output: lines between the progress line's rewrites, escape codes off. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape codes are what this takes off
const screenLines = (text: string) => text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').split(/\r|\n/);

/** Each token whole on one line, and no line wider than 80 columns but one that is a single token wider than that. */
function expectWhole(text: string, tokens: readonly string[]): void {
  const lines = screenLines(text);
  for (const t of tokens)
    expect(
      lines.some((l) => l.includes(t)),
      `${t} whole on a line of:\n${text}`,
    ).toBe(true);
  for (const l of lines) if (l.length > 80) expect(l.trim().split(' ')[0]!.length, l).toBeGreaterThan(80);
}

describe('a payment run at 80 columns', () => {
  it('its journal path, the command that continues it and the audit hash are each whole on one line', async () => {
    const claims = [
      claimTemplate({ type: 'institutional', patient: 'MBR-1002', serviceDate: '2026-06-01' }),
      claimTemplate({ type: 'institutional', patient: 'MBR-1003', serviceDate: '2026-06-02' }),
    ];
    writeFileSync(join(home, 'claims.ndjson'), `${claims.map((c) => JSON.stringify(c)).join('\n')}\n`);
    expect((await runTpa(['claim', 'submit', 'claims.ndjson', '-o', 'ndjson'], { home, env })).code).toBe(0);
    const { total } = (await runTpa(['fund', 'run', '--dry-run', '-o', 'json'], { home, env })).json<{ total: number }>();
    const term = { home, tty: true, columns: 80 };
    // Stopped by the service failing its approvals: the summary's Next and the note give the command that continues it.
    const stopped = await runTpa(['fund', 'run', '--auth-code-prefix', 'AUTH-20260630-ACME', '--expect-total', String(total), '--yes'], {
      ...term,
      env: { ...env, TPA_FAULT: 'error-500:/funding/approve/' },
    });
    const journal = /Journal\s+(\S+\.ndjson)/.exec(stopped.stdout.replace(/\s+/g, ' '))![1]!;
    // The case at hand: too long beside a label, not for a line.
    expect(journal.length).toBeGreaterThan(66);
    expect(journal.length).toBeLessThanOrEqual(80);
    const all = `${stopped.stdout}\n${stopped.stderr}`;
    expectWhole(all, [journal]);
    // The command to continue, read back as a shell reads it (backslash-newline gone), is whole and runs as printed.
    const commands = screenLines(all.replace(/ \\\n\s*/g, ' ')).filter((l) => l.includes('tpa fund run --journal'));
    expect(commands.length, all).toBeGreaterThanOrEqual(2);
    for (const c of commands) expect(c).toMatch(new RegExp(`tpa fund run --journal ${journal.replace(/[.]/g, '\\.')}\\)?$`));

    const resumed = await runTpa(['fund', 'run', '--journal', journal, '--yes'], { ...term, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    const hash = /Audit head\s+record \d+\s+([0-9a-f]{64})/.exec(resumed.stdout.replace(/\s+/g, ' '))![1]!;
    expectWhole(`${resumed.stdout}\n${resumed.stderr}`, [journal, hash]);
  });
});
