// The 835 of a claim whose lines are on two days: the ledger detail carries each
// line's own service_date and DTM*472 of each SVC is that date, not the encounter's.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { useTpaHome } from '../../helpers/cli.js';
import { adjudicatedEncounter } from '../../helpers/encounters.js';
import { checked835 } from '../../helpers/x12-835-check.js';

type Body = Record<string, any>;

const home = useTpaHome(beforeEach, afterEach);
const run = home.run;

it("writes each line's own date of service in DTM*472, as the ledger detail now gives it", async () => {
  expect((await run(['local', 'clock', 'set', '2026-03-02T10:00:00Z'])).code).toBe(0);
  const e = await adjudicatedEncounter(run, home.dir, {
    template: ['--type', 'professional', '--npi', '1045782368', '--cpt', '45380', '99213', '--patient', 'MBR-1003', '--service-date', '2026-03-02'],
    // The first line a few days earlier, as the X222 example's lines are (2006-10-03 and 2006-10-10).
    edit: (claim) => {
      claim.item[0].servicedDate = '2026-02-27';
      if (claim.billablePeriod) claim.billablePeriod.start = '2026-02-27';
    },
  });
  const detail = (await run(['ledger', 'show', e.id, '-o', 'json'])).json<Body>();
  expect(detail.service_lines.map((l: Body) => l.service_date)).toEqual(['2026-02-27', '2026-03-02']);
  const f = await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', 'AUTH-TWO-DAYS', '--yes']);
  expect(f.code, f.stderr).toBe(0);
  expect((await run(['local', 'clock', 'advance', '2d'])).code).toBe(0);
  const r = await run(['settlement', 'remit', e.id]);
  expect(r.code, r.stderr).toBe(0);
  const { transactions } = checked835(r.stdout);
  expect(transactions.flatMap((t) => t.claims[0]!.lines.map((l) => l.dtm472))).toEqual(['20260227', '20260302']);
});
