// The in-process transport opens the engine once, however many requests arrive before it is open
// (a few reads in flight at once): close() then closes the one connection there is, and none is
// left holding the database (tpa local restore needs it alone).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalTransport } from '../../src/local/transport.js';
import { tempDir } from '../helpers/engine.js';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.remove());

describe('LocalTransport', () => {
  it('requests made at once before the engine is open share one engine, which close() closes', async () => {
    const transport = new LocalTransport(dir.dir, { TPA_KEYRING: 'off' });
    const engines = await Promise.all([transport.open(), transport.open(), transport.open(), transport.open()]);
    expect(new Set(engines).size).toBe(1);
    transport.close();
    expect(engines[0]!.db.open).toBe(false);
    // Opened again after close, a new one.
    const again = await transport.open();
    expect(again).not.toBe(engines[0]);
    transport.close();
  });
});
