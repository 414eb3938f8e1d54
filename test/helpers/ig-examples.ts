// X12's published 837 examples (test/fixtures/public/x12/README.md) and what tpa needs to take
// them: the claims they carry written as FHIR by hand, and what the local engine cannot take as
// published (test/fixtures/public/x12/README.md says how tpa takes them): the billing provider's NPI
// (the examples' NPIs are illustrative and fail the NPI check digit; the seed holds each provider
// under the same first nine digits with the right check digit, docs/design.md "The local engine's
// fixtures"), the payer (NM1*PR: the seed's payer instead), and the 837P's dependent patient (loop
// 2000C), sent as the subscriber under the member id the seed holds him under.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const IG_DIR = fileURLToPath(new URL('../fixtures/public/x12/', import.meta.url));

export interface IgExample {
  /** 837P or 837I. */
  kind: 'professional' | 'institutional';
  /** The published interchange, as published. */
  x12: string;
  /** The claim it carries, as a FHIR R4 Claim written by hand. */
  fhir: string;
  clm01: string;
  /** The billing provider's NPI as published, and as the seed holds it. */
  npi: { published: string; seeded: string };
  /** The payer's id (NM1*PR NM109) as published, and the seed's payer it is mapped onto. */
  payer: { published: string; seeded: string };
  memberId: string;
  /**
   * A patient published as a dependent (loop 2000C) of the subscriber: moved into the subscriber
   * loop (NM1*IL with the patient's name and `memberId`, SBR02 18), the 2000C loop's segments dropped.
   */
  dependent?: { last: string; first: string };
}

/** The local engine's payer (src/engine/store/seed.ts, every plan's). */
export const SEED_PAYER = 'PAYER-ACME';

export const IG_EXAMPLES: readonly IgExample[] = [
  {
    kind: 'professional',
    x12: 'X222-commercial-health-insurance.edi',
    fhir: 'X222-commercial-health-insurance.fhir.json',
    clm01: '26463774',
    npi: { published: '9876543210', seeded: '9876543213' },
    payer: { published: '999996666', seeded: SEED_PAYER },
    memberId: 'JS00111223333',
    dependent: { last: 'SMITH', first: 'TED' },
  },
  {
    kind: 'institutional',
    x12: 'X223-837-institutional-claim.edi',
    fhir: 'X223-837-institutional-claim.fhir.json',
    clm01: '756048Q',
    npi: { published: '9876540809', seeded: '9876540805' },
    payer: { published: '00435', seeded: SEED_PAYER },
    memberId: '030005074A',
  },
];

export const igText = (file: string): string => readFileSync(`${IG_DIR}${file}`, 'utf8');

/**
 * The published interchange mapped onto the local engine's seed, every other byte as published:
 * what `claim submit` is given. The billing provider's NPI (NM1*85 …*XX*<npi>) and the payer's id
 * (NM1*PR …*PI*<id>) as the seed holds them; a dependent patient (loop 2000C: HL*23, PAT, NM1*QC,
 * N3, N4, DMG) moved into the subscriber loop (NM1*IL with the patient's name and the member id,
 * SBR02 18, the subscriber HL without a child), SE01 counted again; and marked production data
 * (ISA15 P, where the example says T: tpa does not pay test data).
 */
export function igX12Mapped(example: IgExample): string {
  const text = igText(example.x12);
  const e = text[3]!;
  const t = text[105]!;
  const segments = text.split(t);
  const once = (what: string, test: (s: string) => boolean): number => {
    const at = segments.flatMap((s, i) => (test(s) ? [i] : []));
    if (at.length !== 1) throw new Error(`${example.x12}: expected one ${what}`);
    return at[0]!;
  };
  const replaceEnd = (i: number, from: string, to: string) => {
    if (!segments[i]!.endsWith(from)) throw new Error(`${example.x12}: ${segments[i]} does not end ${from}`);
    segments[i] = segments[i]!.slice(0, -from.length) + to;
  };
  replaceEnd(
    once('NM1*85', (s) => s.startsWith(`NM1${e}85${e}`)),
    `${e}XX${e}${example.npi.published}`,
    `${e}XX${e}${example.npi.seeded}`,
  );
  // The claim's payer (2010BB); a secondary payer's (2330B, the 837I's) is kept as published.
  replaceEnd(
    once('NM1*PR', (s) => s.startsWith(`NM1${e}PR${e}`) && s.endsWith(`${e}PI${e}${example.payer.published}`)),
    `${e}PI${e}${example.payer.published}`,
    `${e}PI${e}${example.payer.seeded}`,
  );
  if (example.dependent) {
    const d = example.dependent;
    const hl = once('HL*22', (s) => s.startsWith(`HL${e}`) && s.split(e)[3] === '22');
    // The subscriber's HL has no child once its patient loop is gone (HL04 0).
    replaceEnd(hl, `${e}22${e}1`, `${e}22${e}0`);
    const sbr = segments[hl + 1]!.split(e);
    if (sbr[0] !== 'SBR') throw new Error(`${example.x12}: no SBR after the subscriber's HL`);
    sbr[2] = '18';
    segments[hl + 1] = sbr.join(e);
    const il = once('NM1*IL', (s) => s.startsWith(`NM1${e}IL${e}`));
    const nm1 = segments[il]!.split(e);
    nm1[3] = d.last;
    nm1[4] = d.first;
    if (nm1[9] !== example.memberId) throw new Error(`${example.x12}: NM1*IL names ${nm1[9]}`);
    segments[il] = nm1.join(e);
    const patient = once('HL*23', (s) => s.startsWith(`HL${e}`) && s.split(e)[3] === '23');
    let end = patient + 1;
    for (; !segments[end]!.startsWith(`CLM${e}`); end++)
      if (!/^(PAT|NM1\*QC|N3|N4|DMG)\*/.test(segments[end]!.replaceAll(e, '*'))) throw new Error(`${example.x12}: ${segments[end]} in the patient loop`);
    const dropped = end - patient;
    segments.splice(patient, dropped);
    const se = once('SE', (s) => s.startsWith(`SE${e}`));
    const [, count, control] = segments[se]!.split(e);
    segments[se] = ['SE', String(Number(count) - dropped), control].join(e);
  }
  const out = segments.join(t);
  // The published examples are test data (ISA15 T), which tpa does not pay: as production sends them (P).
  if (out[102] !== 'T' && out[102] !== 'P') throw new Error(`${example.x12}: expected ISA15 at offset 102`);
  return `${out.slice(0, 102)}P${out.slice(103)}`;
}

/** The segments of an interchange, each a list of elements, by the delimiters its ISA declares. */
export function x12Segments(text: string): string[][] {
  const element = text[3]!;
  const terminator = text[105]!;
  return text
    .split(terminator)
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => s.split(element));
}

/** The component separator an interchange's ISA declares (ISA16). */
export const x12Component = (text: string): string => text[104]!;
