// Broken claims for the parser's golden test (test/unit/fhir-claim.errors.test.ts): each case
// changes one valid claim in one way a real file might get wrong.
import { claimTemplate } from '../../src/domain/claim-template.js';

type Json = Record<string, any>;
const NPI = 'http://hl7.org/fhir/sid/us-npi';

/** The role codes other systems write for the roles paid (the parser reads them; the template writes claimcareteamrole's). */
const PAID_ROLE_CODE: Record<string, string> = { surgeon: 'surgeon', anesthesia: 'anesthesiologist', pathology: 'pathologist', facility: 'facility' };

export const base = (type: 'professional' | 'institutional' = 'professional'): Json => {
  const claim = claimTemplate({ type, serviceDate: '2026-03-02', ...(type === 'institutional' ? {} : { cpt: ['45378', '43235'] }) }) as Json;
  for (const m of claim.careTeam as Json[]) m.role = { coding: [{ system: m.role.coding[0].system, code: PAID_ROLE_CODE[m.role.text] }] };
  return claim;
};

const item = (c: Json, i = 0) => c.item[i] as Json;

export const CASES: [string, (c: Json) => unknown][] = [
  ['not an object', () => []],
  ['another resource', (c) => ({ ...c, resourceType: 'Patient' })],
  ['no resourceType', (c) => ({ ...c, resourceType: undefined })],
  ['no type', (c) => ({ ...c, type: undefined })],
  ['type of another code', (c) => ({ ...c, type: { coding: [{ code: 'dental' }] } })],
  ['type code not text', (c) => ({ ...c, type: { coding: [{ code: 5 }] } })],
  ['type coding empty', (c) => ({ ...c, type: { coding: [] } })],
  ['use preauthorization', (c) => ({ ...c, use: 'preauthorization' })],
  ['no provider', (c) => ({ ...c, provider: undefined })],
  ['provider without identifier', (c) => ({ ...c, provider: { display: 'x' } })],
  ['provider NPI bad check digit', (c) => ({ ...c, provider: { identifier: { system: NPI, value: '1234567890' } } })],
  ['provider NPI too short', (c) => ({ ...c, provider: { identifier: { system: NPI, value: '12345' } } })],
  ['provider NPI another system only', (c) => ({ ...c, provider: { identifier: { system: 'urn:other', value: '1234567893' } } })],
  ['provider NPI without a system', (c) => ({ ...c, provider: { identifier: { value: '1234567893' } } })],
  ['provider literal reference', (c) => ({ ...c, provider: { reference: 'Organization/1234567893' } })],
  ['provider literal reference bad NPI', (c) => ({ ...c, provider: { reference: 'Organization/1234567890' } })],
  ['provider contained reference missing', (c) => ({ ...c, provider: { reference: '#org-x' } })],
  [
    'provider contained with NPI',
    (c) => ({
      ...c,
      contained: [
        {
          resourceType: 'Organization',
          id: 'org1',
          name: 'Org One',
          identifier: [
            { system: 'urn:x', value: 'A' },
            { system: NPI, value: '1234567893' },
          ],
        },
      ],
      provider: { reference: '#org1' },
    }),
  ],
  [
    'provider contained with a bad NPI',
    (c) => ({
      ...c,
      contained: [{ resourceType: 'Organization', id: 'org1', identifier: [{ system: NPI, value: '1234567890' }] }],
      provider: { reference: '#org1' },
    }),
  ],
  ['no patient', (c) => ({ ...c, patient: undefined })],
  ['patient reference not a Patient', (c) => ({ ...c, patient: { reference: 'Group/GRP-1' } })],
  ['patient reference with base URL', (c) => ({ ...c, patient: { reference: 'https://fhir.example/Patient/MBR-1003' } })],
  ['patient identifier', (c) => ({ ...c, patient: { identifier: { value: 'MBR-1001' } } })],
  ['patient empty identifier and no reference', (c) => ({ ...c, patient: { identifier: { value: '' } } })],
  [
    'patient contained',
    (c) => ({ ...c, contained: [{ resourceType: 'Patient', id: 'p1', identifier: [{ value: 'MBR-1002' }] }], patient: { reference: '#p1' } }),
  ],
  ['no created', (c) => ({ ...c, created: undefined })],
  ['created not a date', (c) => ({ ...c, created: 'yesterday' })],
  ['created after today', (c) => ({ ...c, created: '2026-03-05' })],
  ['billablePeriod not an object', (c) => ({ ...c, billablePeriod: 'March' })],
  ['billablePeriod start not a date', (c) => ({ ...c, billablePeriod: { start: 'x', end: '2026-03-02' } })],
  ['billablePeriod end before start', (c) => ({ ...c, billablePeriod: { start: '2026-03-02', end: '2026-03-01' } })],
  ['careTeam not a list', (c) => ({ ...c, careTeam: {} })],
  ['careTeam entry not an object', (c) => ({ ...c, careTeam: [7] })],
  ['careTeam sequence zero', (c) => ({ ...c, careTeam: [{ sequence: 0, provider: { identifier: { system: NPI, value: '1045782368' } } }] })],
  ['careTeam provider missing', (c) => ({ ...c, careTeam: [{ sequence: 1 }] })],
  [
    'careTeam sequence repeated',
    (c) => ({ ...c, careTeam: [...(c.careTeam as Json[]), { ...(c.careTeam as Json[])[0], provider: { identifier: { system: NPI, value: '1045782368' } } }] }),
  ],
  ['status cancelled', (c) => ({ ...c, status: 'cancelled' })],
  ['status entered-in-error', (c) => ({ ...c, status: 'entered-in-error' })],
  ['status absent', (c) => ({ ...c, status: undefined })],
  ['item modifier of three characters', (c) => ((item(c).modifier = [{ coding: [{ code: '591' }] }]), c)],
  ['item modifiers, distinct service and pricing', (c) => ((item(c).modifier = [{ coding: [{ code: '59' }] }, { coding: [{ code: '26' }] }]), c)],
  ['no items', (c) => ({ ...c, item: [] })],
  ['items not a list', (c) => ({ ...c, item: {} })],
  ['item not an object', (c) => ({ ...c, item: ['x'] })],
  ['item sequence missing', (c) => (delete item(c).sequence, c)],
  ['item sequence repeated', (c) => ((item(c, 1).sequence = item(c, 0).sequence), c)],
  ['item code missing', (c) => (delete item(c).productOrService, c)],
  ['item code of four digits', (c) => ((item(c).productOrService = { coding: [{ code: '4537' }] }), c)],
  ['item code not text', (c) => ((item(c).productOrService = { coding: [{ code: 45378 }] }), c)],
  ['item servicedDate not a date', (c) => ((item(c).servicedDate = '03/02/2026'), c)],
  ['item servicedDate after created', (c) => ((item(c).servicedDate = '2026-03-03'), (c.created = '2026-03-02'), c)],
  ['item servicedPeriod instead', (c) => (delete item(c).servicedDate, (item(c).servicedPeriod = { start: '2026-03-01', end: '2026-03-01' }), c)],
  ['item servicedPeriod of two days', (c) => (delete item(c).servicedDate, (item(c).servicedPeriod = { start: '2026-03-01', end: '2026-03-02' }), c)],
  [
    'item servicedPeriod ending before it starts',
    (c) => (delete item(c).servicedDate, (item(c).servicedPeriod = { start: '2026-03-02', end: '2026-02-20' }), c),
  ],
  ['insurance preAuthRef blank', (c) => ((c.insurance = [{ sequence: 1, focal: true, preAuthRef: [' ', '\t'] }]), c)],
  ['item servicedPeriod without start', (c) => (delete item(c).servicedDate, (item(c).servicedPeriod = { end: '2026-03-02' }), c)],
  ['item servicedPeriod still running', (c) => (delete item(c).servicedDate, (item(c).servicedPeriod = { start: '2026-03-01', end: '2026-03-09' }), c)],
  ['item no date, billablePeriod start', (c) => (delete item(c).servicedDate, (c.billablePeriod = { start: '2026-02-27', end: '2026-03-02' }), c)],
  ['item quantity zero', (c) => ((item(c).quantity = { value: 0 }), c)],
  ['item quantity fractional', (c) => ((item(c).quantity = { value: 1.2345 }), c)],
  ['item quantity two', (c) => ((item(c).quantity = { value: 2 }), (item(c).net = { value: item(c).unitPrice.value * 2, currency: 'USD' }), c)],
  ['item net missing', (c) => (delete item(c).net, c)],
  ['item net three decimals', (c) => ((item(c).net = { value: 1.005, currency: 'USD' }), c)],
  ['item net another currency', (c) => ((item(c).net = { ...item(c).net, currency: 'EUR' }), c)],
  ['item net not quantity × unitPrice', (c) => ((item(c).net = { value: item(c).net.value + 1, currency: 'USD' }), c)],
  ['item unitPrice missing', (c) => (delete item(c).unitPrice, c)],
  ['item factor', (c) => ((item(c).factor = 0.5), (item(c).net = { value: item(c).unitPrice.value / 2, currency: 'USD' }), c)],
  ['item factor negative', (c) => ((item(c).factor = -1), c)],
  ['item careTeamSequence unknown', (c) => ((item(c).careTeamSequence = [9]), c)],
  ['item careTeamSequence not a list', (c) => ((item(c).careTeamSequence = 1), c)],
  ['total another currency', (c) => ((c.total = { ...c.total, currency: 'EUR' }), c)],
  ['total not the sum', (c) => ((c.total = { value: c.total.value + 0.01, currency: 'USD' }), c)],
  ['total missing', (c) => (delete c.total, c)],
  [
    'diagnosis codes',
    (c) => (
      (c.diagnosis = [
        { sequence: 1, diagnosisCodeableConcept: { coding: [{ code: 'K63.5' }] } },
        { sequence: 2, diagnosisCodeableConcept: { coding: [{ code: 'Z12.11' }] } },
      ]),
      c
    ),
  ],
  ['preauthorization given', (c) => ((c.supportingInfo = [{ sequence: 1, category: { coding: [{ code: 'priorauthorization' }] }, valueString: 'PA-1' }]), c)],
  ['insurance preAuthRef', (c) => ((c.insurance = [{ sequence: 1, focal: true, preAuthRef: ['PA-9'] }]), c)],
  ['insurer reference', (c) => ((c.insurer = { reference: 'Organization/PAYER-ACME' }), c)],
];

export const INSTITUTIONAL_CASES: [string, (c: Json) => unknown][] = [
  ['revenue code missing', (c) => (delete item(c).revenue, c)],
  ['revenue code of three digits', (c) => ((item(c).revenue = { coding: [{ code: '360' }] }), c)],
  ['as given', (c) => c],
];
