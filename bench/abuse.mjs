// The server under abuse (issue 14): 10,000 malformed requests to `tpa local serve` over raw
// sockets (bad request lines, huge headers, invalid JSON, wrong content types, bodies cut short,
// slow senders that never finish) while a well-formed ledger page is asked for throughout. Targets:
// the well-formed requests' p99 under 50 ms, the server's memory within 20% of where it started,
// and every malformed request answered 4xx or its connection closed, never a 5xx. Memory is read
// from /proc (Linux); elsewhere that figure is skipped.
// BENCH_ABUSE changes the count. Prints the figures; exits 1 if a target is missed.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt, startServer } from './lib/ledger.mjs';

const N = Number(process.env.BENCH_ABUSE ?? 10_000);
const home = mkdtempSync(join(tmpdir(), 'tpa-bench-abuse-'));
const env = { ...process.env, TPA_HOME: home, TPA_ADJUDICATION_DELAY: '0', TPA_KEYRING: 'off' };
delete env.TPA_PROFILE;

const rssOf = (pid) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
};

/** Sends raw bytes; resolves with the status line's code (0 when the connection closed without one). */
function raw(port, chunks, { endAfter = true, holdMs = 0 } = {}) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    let done = false;
    const finish = (code) => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve(code);
    };
    socket.setTimeout(15_000, () => finish(0));
    socket.on('data', (d) => {
      data += d;
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(data);
      if (m) finish(Number(m[1]));
    });
    socket.on('error', () => finish(0));
    socket.on('close', () => finish(0));
    socket.on('connect', async () => {
      for (const c of chunks) socket.write(c);
      if (holdMs) await new Promise((r) => setTimeout(r, holdMs));
      if (endAfter) socket.end();
      else finish(0);
    });
  });
}

const server = await startServer(env);
const port = Number(new URL(server.url).port);
const pid = server.pid;
try {
  const page = `GET /tpa-api/v1/ledger/entries/?limit=20 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${server.key}\r\n\r\n`;
  const key = `X-API-Key: ${server.key}\r\n`;
  const kinds = [
    ['a bad request line', () => ['GARBAGE / NOT-HTTP\r\n\r\n']],
    ['huge headers', () => [`GET /tpa-api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`]],
    ['invalid JSON', () => [`POST /tpa-api/v1/contract-lookup/blind/ HTTP/1.1\r\nHost: x\r\n${key}Content-Type: application/json\r\nContent-Length: 9\r\n\r\n{"npi": }`]],
    ['a wrong content type', () => [`POST /tpa-api/v1/claims/submit/ HTTP/1.1\r\nHost: x\r\n${key}Content-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello`]],
    ['a body cut short', () => [`POST /tpa-api/v1/claims/submit/ HTTP/1.1\r\nHost: x\r\n${key}Content-Type: application/fhir+json\r\nContent-Length: 5000\r\n\r\n{"resourceType":`]],
    ['no key', () => ['GET /tpa-api/v1/ledger/entries/ HTTP/1.1\r\nHost: x\r\n\r\n']],
  ];
  // Where it starts: after one round of every kind of request, so that the code each one runs is
  // loaded and compiled (a server that has answered nothing yet has not loaded its handlers).
  for (const [, make] of kinds) await raw(port, make());
  for (let i = 0; i < 20; i++) await raw(port, [page]);
  const before = pid ? rssOf(pid) : 0;
  const statuses = new Map();
  let fiveXX = 0;
  // Slow senders that never finish: a few dozen connections that send half a request and hold it.
  const slow = Array.from({ length: 50 }, () => raw(port, ['GET /tpa-api/v1/health HTTP/1.1\r\nHost: x\r\n'], { endAfter: false, holdMs: 5000 }));
  const latencies = [];
  let abusing = true;
  const wellFormed = (async () => {
    while (abusing) {
      const start = performance.now();
      const code = await raw(port, [page]);
      latencies.push(performance.now() - start);
      if (code !== 200) fiveXX += code >= 500 ? 1 : 0;
    }
  })();
  const started = performance.now();
  for (let i = 0; i < N; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, N - i) }, async (_, j) => {
        const [name, make] = kinds[(i + j) % kinds.length];
        const code = await raw(port, make());
        statuses.set(name, [...(statuses.get(name) ?? []), code]);
        if (code >= 500) fiveXX++;
      }),
    );
  }
  abusing = false;
  await wellFormed;
  await Promise.all(slow);
  const seconds = (performance.now() - started) / 1000;
  const after = pid ? rssOf(pid) : 0;
  latencies.sort((a, b) => a - b);
  const p99 = latencies[Math.floor(latencies.length * 0.99)] ?? 0;
  console.log(`tpa local serve under abuse: ${fmt(N)} malformed requests in ${seconds.toFixed(1)} s, 50 slow senders, a well-formed page asked for throughout`);
  for (const [name, codes] of statuses) {
    const counts = {};
    for (const c of codes) counts[c === 0 ? 'closed' : c] = (counts[c === 0 ? 'closed' : c] ?? 0) + 1;
    console.log(`  ${name.padEnd(22)} ${Object.entries(counts).map(([k, v]) => `${k}: ${fmt(v)}`).join(', ')}`);
  }
  const growth = before > 0 ? (after - before) / before : 0;
  const results = [
    [`well-formed pages during the abuse (${fmt(latencies.length)})`, `p99 ${p99.toFixed(1)} ms`, 'p99 < 50 ms', p99 < 50],
    ['server memory', `${before.toFixed(0)} MB → ${after.toFixed(0)} MB (${(growth * 100).toFixed(0)}%)`, 'within 20%', growth <= 0.2],
    ['answers of 5xx', String(fiveXX), 'none', fiveXX === 0],
  ];
  for (const [name, value, target, ok] of results) console.log(`  ${name.padEnd(44)} ${value.padEnd(28)} target ${target}: ${ok ? 'ok' : 'MISSED'}`);
  process.exitCode = results.every((r) => r[3]) ? 0 : 1;
} finally {
  await server.stop();
  rmSync(home, { recursive: true, force: true });
}
