// X12's published 837 examples (test/fixtures/public/x12/README.md) and what tpa needs to take
// them: the claims they carry written as FHIR by hand, and what the local engine cannot take as
// published (test/fixtures/public/x12/README.md says how tpa takes them): the billing provider's NPI
// (the examples' NPIs are illustrative and fail the NPI check digit; the seed holds each provider
// under the same first nine digits with the right check digit, docs/local.md "The local engine's
// fixtures"), the payer (NM1*PR: the seed's payer instead), and the 837P's subscriber's member id
// (the seed held her dependent, the patient, under the id the example gives her, before tpa read
// dependents; she is enrolled under another, and the dependent is read as the dependent, loop 2000C).
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
  /** The member the claim is paid under: the patient's member id (the dependent's, for a 2000C patient). */
  memberId: string;
  /**
   * The subscriber's member id (NM1*IL NM109) as published and as the seed holds the subscriber, when
   * the patient is a dependent (loop 2000C), read as published and resolved by name and birth date.
   */
  subscriber?: { published: string; seeded: string };
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
    subscriber: { published: 'JS00111223333', seeded: 'JS00111223300' },
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
 * (NM1*PR …*PI*<id>) as the seed holds them; the subscriber's member id (NM1*IL …*MI*<id>) of a
 * dependent patient (loop 2000C, read as published) as the seed holds the subscriber; and marked production data
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
  if (example.subscriber) {
    replaceEnd(
      once('NM1*IL', (s) => s.startsWith(`NM1${e}IL${e}`)),
      `${e}MI${e}${example.subscriber.published}`,
      `${e}MI${e}${example.subscriber.seeded}`,
    );
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
