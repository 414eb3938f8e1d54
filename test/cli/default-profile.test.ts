// The profile commands without -p use is the one help names: the config's default_profile, or
// TPA_PROFILE, never a constant "local" when another is in force; and a login changes it only when asked.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tpa, useTpaHome } from '../helpers/cli.js';

const home = useTpaHome(beforeEach, afterEach);

/** The -p line of a help text, its wrapped continuation joined. */
const profileLine = (help: string) => {
  const at = help.indexOf('-p, --profile');
  expect(at, help).toBeGreaterThan(-1);
  return help.slice(at, help.indexOf('\n  -', at + 1)).replace(/\s+/g, ' ');
};

describe('--help names the default profile in force', () => {
  it('"local" with no default set; the config\'s default_profile once set, in the root help (static or not) and a command\'s', async () => {
    const root = await home.run(['--help']);
    expect(profileLine(root.stdout)).toContain('(default "local")');
    expect((await home.run(['config', 'set', 'default_profile', 'prod'])).code).toBe(0);
    for (const args of [['--help'], ['fund', 'approve', '--help'], ['ledger', 'list', '--help']]) {
      const r = await home.run(args);
      expect(r.code, r.stderr).toBe(0);
      expect(profileLine(r.stdout), args.join(' ')).toContain('(default "prod", from config.json)');
      expect(r.stdout).not.toContain('(default "local")');
    }
  });

  it('bin/tpa --help as a process: the prebuilt root help only while "local" is the default, else the one in force', async () => {
    const plain = await tpa(['--help'], { home: home.dir });
    expect(profileLine(plain.stdout)).toContain('(default "local")');
    const fromEnv = await tpa(['--help'], { home: home.dir, env: { TPA_PROFILE: 'staging' } });
    expect(fromEnv.code).toBe(0);
    expect(profileLine(fromEnv.stdout)).toContain('(default "staging", from TPA_PROFILE)');
    expect((await home.run(['config', 'set', 'default_profile', 'prod'])).code).toBe(0);
    const fromConfig = await tpa(['--help'], { home: home.dir });
    expect(profileLine(fromConfig.stdout)).toContain('(default "prod", from config.json)');
  });
});
