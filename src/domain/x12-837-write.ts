// Writes an X12 837P or 837I of one FHIR Claim of the shape `tpa claim template` makes, so that the
// README's 837 step has a file to convert and submit: the mapping of docs/x12.md "The mapping" read
// backwards, envelopes and counts computed, production data (ISA15 P) and a claim for payment
// (BHT06 CH), so that `claim convert` and `claim submit` take it as they take a clearinghouse's.
import { CPT_SYSTEM, NPI_SYSTEM, REVENUE_SYSTEM } from './fhir-claim.js';
import { jsonNumberToCents, formatCents } from './money.js';

export interface Claim837Options {
  /** The interchange control number, ISA13: nine digits. A new one for each file (the journal keys claims by it). */
  isa13: string;
  /** When the file is made: CCYYMMDD and HHMM (ISA09/10, GS04/05, BHT04/05). */
  date: string;
  time: string;
  /** Names of NPIs and member ids, for the NM1 segments (the engine reads the ids; a name is for people). */
  names?: Record<string, string>;
}

// biome-ignore lint/suspicious/noExplicitAny: a FHIR Claim as JSON, walked by field name
type Json = Record<string, any>;

const PAYER = { name: 'ACME HEALTH PLAN', id: 'PAYER-ACME' };

/** An amount as X12 writes it (R type): the decimal without trailing zeros, `1800`, `1800.5`. */
function amount(value: unknown): string {
  const cents = jsonNumberToCents(value);
  if (cents === undefined) throw new Error(`not an amount: ${JSON.stringify(value)}`);
  return formatCents(cents)
    .replace(/\.00$/, '')
    .replace(/(\.\d)0$/, '$1');
}

const d8 = (iso: string) => iso.replaceAll('-', '');
/** X12 text: upper case, none of the delimiters (* : ~ ^) and nothing outside the basic set. */
const text = (s: string) =>
  s
    .toUpperCase()
    .replace(/[^A-Z0-9 !&'()+,\-./;?=%@[\]_{}\\|<>#$]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** NM1 of a person (NM102 1: last, first) or an organization (2: its name in NM103). */
function nm1(entity: string, name: string, qualifier: string, id: string, person: boolean): string {
  if (!person) return `NM1*${entity}*2*${text(name)}*****${qualifier}*${id}`;
  const words = text(name.replace(/^Dr\.\s*/, '').replace(/,.*$/, '')).split(' ');
  const last = words.length > 1 ? words.at(-1)! : words[0]!;
  const first = words.length > 1 ? words.slice(0, -1).join(' ') : '';
  return `NM1*${entity}*1*${last}*${first}****${qualifier}*${id}`;
}

/** The NPI of an identifier or a reference `Organization/<npi>`. */
function npiOf(party: Json | undefined): string | undefined {
  const id = party?.identifier;
  if (id?.system === NPI_SYSTEM && typeof id.value === 'string') return id.value;
  return undefined;
}

const code = (concept: Json | undefined, system: string): string | undefined =>
  (concept?.coding as Json[] | undefined)?.find((c) => c.system === system)?.code as string | undefined;

/**
 * The 837 of `claim`: one interchange, one functional group, one transaction set, the billing
 * provider, the subscriber (the member, who is the patient) and the claim with its lines. Each line
 * whose care-team provider is not the claim's own rendering provider names its own (2420A/2420C
 * NM1*82), so that the converted claim pays each provider on its lines as the FHIR one does.
 */
export function claim837(claim: Json, o: Claim837Options): string {
  const institutional = code(claim.type, 'http://terminology.hl7.org/CodeSystem/claim-type') === 'institutional';
  const version = institutional ? '005010X223A2' : '005010X222A1';
  const names = o.names ?? {};
  const billing = npiOf(claim.provider);
  if (billing === undefined) throw new Error('the claim has no billing provider NPI');
  const member = String(claim.patient?.reference ?? '').replace(/^Patient\//, '');
  const team = new Map<number, string>();
  for (const m of (claim.careTeam ?? []) as Json[]) {
    const npi = npiOf(m.provider);
    if (npi !== undefined) team.set(m.sequence as number, npi);
  }
  const items = (claim.item ?? []) as Json[];
  const lineNpi = (item: Json): string | undefined => team.get((item.careTeamSequence as number[] | undefined)?.[0] ?? -1);
  // 837P: the claim's rendering provider is the first line's; 837I: the facility bills, each
  // professional line names its provider.
  const rendering = institutional ? undefined : items.map(lineNpi).find((n) => n !== undefined);
  const start = claim.billablePeriod?.start ?? items[0]?.servicedDate;
  const end = claim.billablePeriod?.end ?? start;
  const diagnoses = ((claim.diagnosis ?? []) as Json[]).map((d) => String(d.diagnosisCodeableConcept?.coding?.[0]?.code ?? '').replace('.', ''));
  const clm01 = `${member}-${d8(o.date)}-${o.isa13}`.slice(0, 38);
  const person = (npi: string) => !/center|associates|lab|group|clinic|hospital/i.test(names[npi] ?? '');
  const body: string[] = [
    `ST*837*0001*${version}`,
    `BHT*0019*00*${o.isa13}*${o.date}*${o.time}*CH`,
    'NM1*41*2*TPA CLAIM TEMPLATE*****46*TPATEMPLATE',
    `NM1*40*2*${PAYER.name}*****46*${PAYER.id}`,
    'HL*1**20*1',
    nm1('85', names[billing] ?? `PROVIDER ${billing}`, 'XX', billing, false),
    'N3*1 RIVER RD',
    'N4*SPRINGFIELD*IL*62701',
    'REF*EI*123456789',
    'HL*2*1*22*0',
    'SBR*P*18*******CI',
    nm1('IL', names[member] ?? 'MEMBER', 'MI', member, true),
    nm1('PR', PAYER.name, 'PI', PAYER.id, false),
    institutional ? `CLM*${clm01}*${amount(claim.total?.value)}***13:A:1**A*Y*Y` : `CLM*${clm01}*${amount(claim.total?.value)}***11:B:1*Y*A*Y*Y`,
    ...(institutional ? [`DTP*434*RD8*${d8(start)}-${d8(end)}`, 'CL1*3*1*01'] : []),
    `HI*${diagnoses.map((c, i) => `${i === 0 ? 'ABK' : 'ABF'}:${c}`).join('*')}`,
    ...(rendering === undefined ? [] : [nm1('82', names[rendering] ?? `PROVIDER ${rendering}`, 'XX', rendering, person(rendering))]),
  ];
  for (const [i, item] of items.entries()) {
    const cpt = code(item.productOrService, CPT_SYSTEM);
    const charge = amount(item.net?.value);
    const units = String(item.quantity?.value ?? 1);
    body.push(`LX*${i + 1}`);
    if (institutional) body.push(`SV2*${code(item.revenue, REVENUE_SYSTEM)}*HC:${cpt}*${charge}*UN*${units}`);
    else body.push(`SV1*HC:${cpt}*${charge}*UN*${units}***1`);
    if (item.servicedDate) body.push(`DTP*472*D8*${d8(item.servicedDate)}`);
    const npi = lineNpi(item);
    if (npi !== undefined && npi !== rendering) body.push(nm1('82', names[npi] ?? `PROVIDER ${npi}`, 'XX', npi, person(npi)));
  }
  body.push(`SE*${body.length + 1}*0001`);
  const isa = `ISA*00*${' '.repeat(10)}*00*${' '.repeat(10)}*ZZ*${'TPATEMPLATE'.padEnd(15)}*ZZ*${PAYER.id.padEnd(15)}*${o.date.slice(2)}*${o.time}*^*00501*${o.isa13}*0*P*:`;
  const segments = [isa, `GS*HC*TPATEMPLATE*${PAYER.id}*${o.date}*${o.time}*1*X*${version}`, ...body, 'GE*1*1', `IEA*1*${o.isa13}`];
  return `${segments.join('~\n')}~\n`;
}
