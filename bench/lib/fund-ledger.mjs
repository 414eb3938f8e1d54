// `node bench/lib/fund-ledger.mjs <data dir> <days>`: the money of a ledger built by build-ledger.mjs,
// moved through the engine's own request path and sandbox triggers, one day at a time over `days`
// days after the ledger's clock (the stored engine clock moved a day each time): every adjudicated
// encounter with a benefit is funded on one of those days, so its service may lie years before;
// one in 40 fails the same day and is funded again 35 days later; one in 60 that arrived is refunded
// 10 days after its funding. Transfers arrive T+1 business day, as the engine makes them due. Prints
// one JSON line: the clock at the end, the first funding day, and the counts.
import { rmSync } from 'node:fs';
import { loadEngine } from './ledger.mjs';

const [dir, daysText, startClock] = [process.argv[2], process.argv[3], process.argv[4]];
const days = Number(daysText);
if (!dir || !Number.isInteger(days) || days < 1 || !startClock) throw new Error('usage: fund-ledger.mjs <data dir> <days> <start clock>');
const DAY = 86_400_000;
const TPA = '/tpa-api/v1';
const { Engine, work } = await loadEngine();
try {
  const engine = Engine.open({ dataDir: dir, env: { TPA_ADJUDICATION_DELAY: '0' } });
  const get = (path, query) => engine.handle({ method: 'GET', path, query, headers: {}, body: '' });
  const post = (path, body) =>
    engine.handle({ method: 'POST', path, query: new URLSearchParams(), headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  engine.setClock(startClock);
  // Every entry, page by page (the `next` link), as a client reads them.
  const toFund = [];
  let query = new URLSearchParams({ limit: '100' });
  for (;;) {
    const page = get(`${TPA}/ledger/entries/`, query);
    if (page.status !== 200) throw new Error(`ledger page: ${page.status}`);
    const body = typeof page.body === 'string' ? JSON.parse(page.body) : page.body;
    for (const e of body.results)
      if (e.status === 'ADJUDICATED' && e.financial_summary.benefit_amount > 0) toFund.push({ id: e.encounter_id, amount: e.financial_summary.benefit_amount });
    if (!body.next) break;
    query = new URL(body.next, 'http://x').searchParams;
  }
  const counts = { funded: 0, failed: 0, refunded: 0, fundedAgain: 0 };
  const again = new Map();
  const refunds = new Map();
  let code = 0;
  const fund = (e) => {
    const r = post(`${TPA}/funding/approve/`, { encounter_id: e.id, amount: e.amount, authorization_code: `AUTH-BENCH-${++code}` });
    if (r.status !== 200) throw new Error(`funding ${e.id}: ${r.status} ${JSON.stringify(r.body)}`);
  };
  const first = Date.parse(startClock) + DAY;
  for (let d = 0; d < days; d++) {
    engine.setClock(new Date(first + d * DAY).toISOString());
    for (let i = d; i < toFund.length; i += days) {
      const e = toFund[i];
      fund(e);
      counts.funded++;
      if (i % 40 === 7) {
        engine.simulate('settlement-failure', e.id);
        counts.failed++;
        if (d + 35 < days) (again.get(d + 35) ?? again.set(d + 35, []).get(d + 35)).push(e);
      } else if (i % 60 === 11 && d + 10 < days) (refunds.get(d + 10) ?? refunds.set(d + 10, []).get(d + 10)).push(e);
    }
    for (const e of again.get(d) ?? []) {
      fund(e);
      counts.fundedAgain++;
    }
    for (const e of refunds.get(d) ?? []) {
      engine.simulate('refund', e.id);
      counts.refunded++;
    }
  }
  const end = new Date(first + days * DAY).toISOString();
  engine.setClock(end);
  engine.close();
  console.log(JSON.stringify({ end, firstDay: new Date(first).toISOString().slice(0, 10), ...counts }));
} finally {
  rmSync(work, { recursive: true, force: true });
}
