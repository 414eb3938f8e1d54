// A server that sends more than any answer of the service can be (a hostile or broken one) is not
// read to the end: tpa stops at MAX_ANSWER_BYTES and says so (exit 8), instead of holding whatever
// it is sent. A real server on 127.0.0.1 streams the answers.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTransport } from '../../src/client/http.js';
import { exchange, MAX_ANSWER_BYTES } from '../../src/client/request.js';
import { NetworkError } from '../../src/errors.js';

const MIB = Buffer.alloc(1024 * 1024, 0x20);
let server: Server;
let base: string;
let sent = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url === '/small') return void res.end(`"${'x'.repeat(10_000)}"`);
    // Twice the limit, a mebibyte at a time, as long as the reader reads.
    let left = (2 * MAX_ANSWER_BYTES) / MIB.length;
    const more = () => {
      while (left > 0) {
        left--;
        sent += MIB.length;
        if (!res.write(MIB)) return void res.once('drain', more);
      }
      res.end();
    };
    res.on('close', () => (left = 0));
    more();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('an answer larger than any the service sends', () => {
  it('is read whole up to the limit, and refused past it', async () => {
    const small = await exchange(`${base}/small`, { method: 'GET', headers: {}, timeoutMs: 30_000, maxBytes: 10_002 });
    expect(small.text.length).toBe(10_002);
    await expect(exchange(`${base}/small`, { method: 'GET', headers: {}, timeoutMs: 30_000, maxBytes: 10_001 })).rejects.toMatchObject({
      code: 'ERR_RESPONSE_TOO_LARGE',
    });
  });

  it('stops the transport at 64 MiB with a network error (exit 8) that says why', async () => {
    const transport = new HttpTransport({ baseUrl: base, apiKey: 'sk_sand_test', timeoutMs: 60_000 });
    const err = await transport.send({ method: 'GET', path: '/huge', headers: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).exitCode).toBe(8);
    expect((err as Error).message).toMatch(/more than 64 MiB; tpa stopped reading it/);
    // It stopped reading: the server, meaning to send twice the limit, got to send little past it
    // (what the sockets' buffers took).
    expect(sent).toBeGreaterThan(MAX_ANSWER_BYTES);
    expect(sent).toBeLessThan(MAX_ANSWER_BYTES + 32 * MIB.length);
  });
});
