// Small synthetic X12 837s for the tests: written here, with the engine's seed members and
// providers (src/engine/store/seed.ts), envelopes and counts computed, any delimiters.
import { Readable } from 'node:stream';
import { X12parser } from 'x12-parser';
import { EnvelopeScanner, type X12Claim, X12ClaimReader, type X12Event, type X12Segment } from '../../src/domain/x12-837.js';

export interface Delimiters {
  element: string;
  component: string;
  segment: string;
}
export const STANDARD: Delimiters = { element: '*', component: ':', segment: '~' };

/** One claim's segments (from CLM on), written with * and : (swapped for the file's delimiters). */
export function professionalClaim(o: {
  clm01: string;
  member?: string;
  /** `cpt` may carry modifiers (`45380:59:76`); `units` 1 by default; `ref6r` the line control number. */
  lines?: { cpt: string; charge: string; date?: string; qualifier?: string; units?: string; ref6r?: string }[];
  extra?: string[];
  hi?: string;
  /** The payer's id (NM1*PR NM109): the seed's by default. */
  payer?: string;
}): string[] {
  const lines = o.lines ?? [{ cpt: '45378', charge: '1800' }];
  const total = lines.reduce((s, l) => s + Number(l.charge) * 100, 0) / 100;
  return [
    `HL*{HL}*1*22*0`,
    'SBR*P*18*GRP-1001******CI',
    `NM1*IL*1*DOE*JANE****MI*${o.member ?? 'MBR-1001'}`,
    `NM1*PR*2*ACME HEALTH PLAN*****PI*${o.payer ?? 'PAYER-ACME'}`,
    `CLM*${o.clm01}*${total}***11:B:1*Y*A*Y*Y`,
    'REF*G1*AUTH-77',
    o.hi ?? 'HI*ABK:K635*ABF:Z1211',
    'NM1*82*1*MORGAN*ALICE****XX*1045782368',
    ...(o.extra ?? []),
    ...lines.flatMap((l, i) => [
      `LX*${i + 1}`,
      `SV1*${l.qualifier ?? 'HC'}:${l.cpt}*${l.charge}*UN*${l.units ?? '1'}***1`,
      `DTP*472*D8*${l.date ?? '20250110'}`,
      ...(l.ref6r ? [`REF*6R*${l.ref6r}`] : []),
    ]),
  ];
}

export function institutionalClaim(o: { clm01: string; member?: string; lines?: { revenue: string; cpt?: string; charge: string }[]; hi?: string }): string[] {
  const lines = o.lines ?? [{ revenue: '0750', cpt: '45380', charge: '2400' }];
  const total = lines.reduce((s, l) => s + Number(l.charge) * 100, 0) / 100;
  return [
    `HL*{HL}*1*22*0`,
    'SBR*P*18*GRP-1001******CI',
    `NM1*IL*1*DOE*JANE****MI*${o.member ?? 'MBR-1001'}`,
    'NM1*PR*2*ACME HEALTH PLAN*****PI*PAYER-ACME',
    `CLM*${o.clm01}*${total}***13:A:1**A*Y*Y`,
    'DTP*434*RD8*20250110-20250110',
    'CL1*3*1*01',
    o.hi ?? 'HI*ABK:K635',
    'NM1*71*1*MORGAN*ALICE****XX*1045782368',
    ...lines.flatMap((l, i) => [`LX*${i + 1}`, `SV2*${l.revenue}*${l.cpt === undefined ? '' : `HC:${l.cpt}`}*${l.charge}*UN*1`]),
  ];
}

/** A transaction set of claims: the billing provider, then each claim (HL numbers filled in). */
export function transaction(o: { st02: string; type: 'professional' | 'institutional'; billingNpi?: string; claims: string[][] }): string[] {
  const version = o.type === 'professional' ? '005010X222A1' : '005010X223A2';
  const body = [
    `ST*837*${o.st02}*${version}`,
    'BHT*0019*00*0123*20250115*1200*CH',
    'NM1*41*2*CLEARINGHOUSE*****46*TGJ23',
    'NM1*40*2*ACME HEALTH PLAN*****46*PAYER-ACME',
    'HL*1**20*1',
    `NM1*85*2*RIVERSIDE SURGERY CENTER*****XX*${o.billingNpi ?? '1234567893'}`,
    'N3*1 RIVER RD',
    'N4*SPRINGFIELD*IL*62701',
    'REF*EI*123456789',
  ];
  let hl = 1;
  for (const claim of o.claims) {
    hl++;
    body.push(...claim.map((s) => s.replace('{HL}', String(hl))));
  }
  body.push(`SE*${body.length + 1}*${o.st02}`);
  return body;
}

/** An interchange of one functional group of the transactions, written with `d`'s delimiters. */
export function interchange(transactions: string[][], o: { isa13?: string; sender?: string; d?: Delimiters; gs08?: string; gs06?: string } = {}): string {
  const d = o.d ?? STANDARD;
  const isa13 = o.isa13 ?? '000000001';
  const sender = (o.sender ?? 'SUBMITTER').padEnd(15);
  const isa = `ISA*00*          *00*          *ZZ*${sender}*ZZ*RECEIVER       *250115*1200*^*00501*${isa13}*0*P*${d.component}`;
  const segments = [
    isa,
    `GS*HC*SUBMITTER*RECEIVER*20250115*1200*${o.gs06 ?? '1'}*X*${o.gs08 ?? '005010X222A1'}`,
    ...transactions.flat(),
    `GE*${transactions.length}*${o.gs06 ?? '1'}`,
    `IEA*1*${isa13}`,
  ];
  const swap = (s: string) => (s.startsWith('ISA*') ? s.replaceAll('*', d.element) : s.replaceAll(':', d.component).replaceAll('*', d.element));
  return `${segments.map(swap).join(`${d.segment}\n`)}${d.segment}\n`;
}

/** The segments of an 837 text, as x12-parser gives them. */
export async function tokens(text: string): Promise<X12Segment[]> {
  const out: X12Segment[] = [];
  for await (const s of Readable.from([Buffer.from(text)]).pipe(new X12parser('utf8'))) out.push(s as X12Segment);
  return out;
}

/** The claims an 837 converts to, read as the CLI reads it: its envelopes first, then its claims. */
export async function convert(text: string): Promise<X12Claim[]> {
  const scanner = new EnvelopeScanner(text.slice(0, 106));
  scanner.push(text);
  const reader = new X12ClaimReader({ report: scanner.end() });
  const events: X12Event[] = [];
  for (const s of await tokens(text)) events.push(...reader.push(s));
  events.push(...reader.end());
  return events.flatMap((e) => (e.kind === 'claim' ? [e.claim] : []));
}
