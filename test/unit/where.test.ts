// The first line of every money screen names the profile, its environment and where the money
// moves, on one line at 80 columns: a long local database path is cut in the middle with …, the
// environment and a service's host never are.
import { describe, expect, it } from 'vitest';
import { targetLine } from '../../src/cli/where.js';

describe('the line naming where the money moves', () => {
  it('a long local database path is cut in the middle to fit 80 columns, its file name kept', () => {
    const host = `~/work/approvers/${'a-very-long-folder-name/'.repeat(4)}data/local.sqlite`;
    const line = targetLine({ profile: 'local', env: 'local', host }, false, 80);
    expect([...line].length).toBeLessThanOrEqual(80);
    expect(line).toMatch(/^Profile local · local engine \(no real money\) · ~\/work\/approvers…\S*\/local\.sqlite$/);
    // One that fits is whole.
    expect(targetLine({ profile: 'local', env: 'local', host: '~/.local/share/tpa/local.sqlite' }, false, 80)).toBe(
      'Profile local · local engine (no real money) · ~/.local/share/tpa/local.sqlite',
    );
  });

  it("a service's environment and host are never cut, however narrow", () => {
    const host = `https://${'api.'.repeat(20)}tpa.example`;
    expect(targetLine({ profile: 'prod', env: 'production', host }, false, 80)).toBe(`Profile prod · PRODUCTION · ${host}`);
  });
});
