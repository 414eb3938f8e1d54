// Small things a user trips on (issue 13's loose ends), each through the real CLI.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';

let home: ReturnType<typeof tempDir>;
beforeEach(() => {
  home = tempDir();
});
afterEach(() => home.remove());

describe('tpa local keys create', () => {
  it('piped with no format asked for prints the bare key (for auth login --with-key-stdin); -o json an object', async () => {
    const bare = await tpa(['local', 'keys', 'create'], { home: home.dir });
    expect(bare.code).toBe(0);
    expect(bare.stdout).toMatch(/^sk_sand_[A-Za-z0-9]+\n$/);
    const json = await tpa(['local', 'keys', 'create', '--scopes', 'ledger_access', '-o', 'json'], { home: home.dir });
    expect(json.code, json.stderr).toBe(0);
    const body = json.json<{ key_id: string; api_key: string; scopes: string[]; environment: string }>();
    expect(body).toEqual({ key_id: expect.stringMatching(/^key_/), api_key: expect.stringMatching(/^sk_sand_/), scopes: ['ledger_access'], environment: 'sandbox' });
    const viaEnv = await tpa(['local', 'keys', 'create', '--env', 'staging'], { home: home.dir, env: { TPA_OUTPUT: 'json' } });
    expect(viaEnv.json()).toMatchObject({ environment: 'staging', api_key: expect.stringMatching(/^sk_/) });
    const ndjson = await tpa(['local', 'keys', 'create', '-o', 'ndjson'], { home: home.dir });
    expect(JSON.parse(ndjson.stdout.trim())).toMatchObject({ key_id: expect.stringMatching(/^key_/) });
  });
});
