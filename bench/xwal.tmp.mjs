import { readFileSync, cpSync, rmSync } from 'node:fs';
import { loadEngine, openEngine, claimBody } from './lib/ledger.mjs';
rmSync('/tmp/lw', { recursive: true, force: true }); cpSync('/tmp/l5k', '/tmp/lw', { recursive: true });
const { Engine, claimTemplate } = await loadEngine();
const e = openEngine(Engine, '/tmp/lw', 20000);
e.db.pragma('wal_checkpoint(TRUNCATE)'); e.db.pragma('wal_autocheckpoint = 0');
for (let i = 5000; i < 5003; i++) {
  const before = readFileSync('/tmp/lw/local.sqlite-wal').length;
  const res = e.handle({ method: 'POST', path: '/tpa-api/v1/claims/submit/', query: new URLSearchParams(), headers: { 'content-type': 'application/fhir+json' }, body: claimBody(claimTemplate, i) });
  const wal = readFileSync('/tmp/lw/local.sqlite-wal');
  const pages = [];
  for (let off = Math.max(32, before); off + 24 <= wal.length; off += 24 + 4096) pages.push(wal.readUInt32BE(off));
  const names = pages.map((p) => e.db.prepare('SELECT name FROM dbstat WHERE pageno = ?').pluck().get(p) ?? `?${p}`);
  console.log(res.status, pages.length, names.join(', '));
}
