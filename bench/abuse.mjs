// The server under abuse: 10,000 malformed requests to `tpa local serve` over raw
// sockets (bad request lines, huge headers, invalid JSON, wrong content types, bodies cut short,
// slow senders that never finish) while a well-formed ledger page is asked for throughout. Targets:
// the well-formed requests' p99 under 50 ms, the server's memory within 20% of where it started,
// and every malformed request answered 4xx or its connection closed, never a 5xx. Memory is read
// from /proc (Linux); elsewhere that figure is skipped.
// The same abuse against a bare Node.js http server is printed beside, for reference (not a target).
// BENCH_ABUSE changes the count. Prints the figures; exits 1 if a target is missed.
import { spawn } from 'node:child_process';
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

/**
 * The abuse against a server listening on `port` (process `pid`): a round of every kind first (where
 * it starts), then `N` malformed requests 50 at a time and 50 slow senders, while `page` is asked for
 * throughout. Returns the answers by kind, the well-formed latencies, the 5xx count and the memory.
 */
async function abuse(port, pid, page, kinds) {
  // Where it starts: the server under normal load. One round of every kind of request, so that the
  // code each one runs is loaded and compiled (a server that has answered nothing yet has not loaded
  // its handlers); then a second of well-formed pages, 50 at a time as the abuse sends its requests,
  // so that V8's heap is sized for that load as a server's in use is. The abuse must not take the
  // server much above that.
  for (const [, make] of kinds) await raw(port, make());
  const normalUntil = performance.now() + 1000;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (performance.now() < normalUntil) await raw(port, [page]);
    }),
  );
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
  return { statuses, fiveXX, seconds, before, after, p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0, answered: latencies.length };
}

const growthOf = (r) => (r.before > 0 ? (r.after - r.before) / r.before : 0);

/**
 * For reference, the same abuse against a bare Node.js HTTP server (node:http, no tpa code: it reads
 * each body and answers a small JSON, 200 for the page and 401 otherwise). How much its memory
 * grows is Node's own (the young generation grows with many connections at once), not tpa's.
 */
async function bareNode(kinds) {
  const source = `const s = require('node:http').createServer((q, r) => { q.resume(); q.on('end', () => { const b = JSON.stringify({ results: Array.from({ length: q.url.includes('ledger') ? 20 : 0 }, (_, i) => ({ i, name: 'x'.repeat(200) })) }); r.writeHead(q.url.includes('ledger') ? 200 : 401, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(b) }); r.end(b); }); });
    s.headersTimeout = 20000; s.requestTimeout = 60000; s.keepAliveTimeout = 5000;
    s.listen(0, '127.0.0.1', () => console.log(s.address().port)); process.on('SIGTERM', () => process.exit(0));`;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'ignore'] });
  const port = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
  try {
    return await abuse(port, child.pid, 'GET /tpa-api/v1/ledger/entries/?limit=20 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', kinds);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
  }
}

const server = await startServer(env);
const port = Number(new URL(server.url).port);
try {
  const page = `GET /tpa-api/v1/ledger/entries/?limit=20 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${server.key}\r\n\r\n`;
  const key = `X-API-Key: ${server.key}\r\n`;
  const kinds = [
    ['a bad request line', () => ['GARBAGE / NOT-HTTP\r\n\r\n']],
    ['huge headers', () => [`GET /tpa-api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`]],
    [
      'invalid JSON',
      () => [`POST /tpa-api/v1/contract-lookup/blind/ HTTP/1.1\r\nHost: x\r\n${key}Content-Type: application/json\r\nContent-Length: 9\r\n\r\n{"npi": }`],
    ],
    ['a wrong content type', () => [`POST /tpa-api/v1/claims/submit/ HTTP/1.1\r\nHost: x\r\n${key}Content-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello`]],
    [
      'a body cut short',
      () => [
        `POST /tpa-api/v1/claims/submit/ HTTP/1.1\r\nHost: x\r\n${key}Content-Type: application/fhir+json\r\nContent-Length: 5000\r\n\r\n{"resourceType":`,
      ],
    ],
    ['no key', () => ['GET /tpa-api/v1/ledger/entries/ HTTP/1.1\r\nHost: x\r\n\r\n']],
  ];
  const r = await abuse(port, server.pid, page, kinds);
  await server.stop();
  const bare = await bareNode(kinds);
  console.log(
    `tpa local serve under abuse: ${fmt(N)} malformed requests in ${r.seconds.toFixed(1)} s, 50 slow senders, a well-formed page asked for throughout`,
  );
  for (const [name, codes] of r.statuses) {
    const counts = {};
    for (const c of codes) counts[c === 0 ? 'closed' : c] = (counts[c === 0 ? 'closed' : c] ?? 0) + 1;
    console.log(
      `  ${name.padEnd(22)} ${Object.entries(counts)
        .map(([k, v]) => `${k}: ${fmt(v)}`)
        .join(', ')}`,
    );
  }
  const results = [
    [`well-formed pages during the abuse (${fmt(r.answered)})`, `p99 ${r.p99.toFixed(1)} ms`, 'p99 < 50 ms', r.p99 < 50],
    ['server memory', `${r.before.toFixed(0)} MB → ${r.after.toFixed(0)} MB (${(growthOf(r) * 100).toFixed(0)}%)`, 'within 20%', growthOf(r) <= 0.2],
    ['answers of 5xx', String(r.fiveXX), 'none', r.fiveXX === 0],
  ];
  for (const [name, value, target, ok] of results) console.log(`  ${name.padEnd(44)} ${value.padEnd(28)} target ${target}: ${ok ? 'ok' : 'MISSED'}`);
  console.log(
    `  reference: a bare Node.js http server, same abuse  ${bare.before.toFixed(0)} MB → ${bare.after.toFixed(0)} MB (${(growthOf(bare) * 100).toFixed(0)}%), p99 ${bare.p99.toFixed(1)} ms`,
  );
  process.exitCode = results.every((x) => x[3]) ? 0 : 1;
} finally {
  await server.stop();
  rmSync(home, { recursive: true, force: true });
}
