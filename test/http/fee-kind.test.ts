// Over a real `tpa local serve`, and in-process on the same data: a surgeon's line paid through the
// billing provider (Valley Family Clinic holds no contract) is still a surgeon's fee, so the
// facility's own fee for the procedure pays beside it, in either order (docs/money-rules.md
// "Payees", "Duplicates").
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimFile } from '../helpers/encounters.js';
import { useServedSides } from '../helpers/server.js';

type Body = Record<string, any>;
const home = useServedSides(beforeEach, afterEach, '2026-04-06T10:00:00Z');
const { local, remote } = home;
type Side = typeof local;

const VALLEY = '1859362703';
const RIVERSIDE = '1234567893';

/** The template's institutional claim for `patient`, kept to the lines `keep` selects (renumbered). */
function keepLines(claim: Body, keep: (item: Body) => boolean): void {
  claim.item = (claim.item as Body[]).filter(keep).map((item, i) => ({ ...item, sequence: i + 1 }));
  delete claim.total;
}
/** Riverside's own facility line for 45380. */
const facilityFee = (claim: Body) => keepLines(claim, (item) => item.careTeamSequence === undefined);
/** The template's surgeon line for 45380, rendered by Valley Family Clinic (the adversarial review's claim). */
const valleyFee = (claim: Body) => {
  claim.careTeam = [
    { sequence: 1, provider: { identifier: { system: 'http://hl7.org/fhir/sid/us-npi', value: VALLEY } }, role: { coding: [{ code: 'primary' }] } },
  ];
  keepLines(claim, (item) => item.careTeamSequence?.[0] === 1);
};

/** Submits the edited template claim on one side and reads its ledger entry's service lines. */
async function serviceLines(side: Side, patient: string, edit: (claim: Body) => void): Promise<Body[]> {
  const file = await claimFile(side, home.dir, { template: ['--type', 'institutional', '--patient', patient, '--service-date', '2026-04-06'], edit });
  const ack = await side(['claim', 'submit', file, '--wait', '--again', '-o', 'json']);
  expect(ack.code, ack.stderr).toBe(0);
  const id = ack.json<Body>().external_claim_id as string;
  const shown = await side(['ledger', 'show', id, '-o', 'json']);
  expect(shown.code, shown.stderr).toBe(0);
  return (shown.json<Body>().service_lines as Body[]).map((l) => ({
    npi: l.provider_npi,
    code: l.cpt_code,
    status: l.status,
    denial: l.denial_code,
    allowed: l.allowed_amount,
  }));
}

describe('a surgeon paid through the billing provider is still a surgeon’s fee', () => {
  for (const [name, side] of [
    ['in-process', local],
    ['over local serve', remote],
  ] as const) {
    it(`Valley’s 45380 and Riverside’s own 45380 both pay, in either order (${name})`, async () => {
      for (const [patient, order] of [
        ['MBR-1003', [valleyFee, facilityFee]],
        ['MBR-1004', [facilityFee, valleyFee]],
      ] as const) {
        const first = await serviceLines(side, patient, order[0]);
        const second = await serviceLines(side, patient, order[1]);
        const [valley, facility] = order[0] === valleyFee ? [first, second] : [second, first];
        // Valley's line is paid to Riverside, priced under Riverside's contract (capped at its 650.00 charge).
        expect(valley, patient).toEqual([{ npi: RIVERSIDE, code: '45380', status: 'ALLOWED', denial: null, allowed: 650 }]);
        expect(facility, patient).toEqual([{ npi: RIVERSIDE, code: '45380', status: 'ALLOWED', denial: null, allowed: 1650 }]);
      }
    });
  }
});
