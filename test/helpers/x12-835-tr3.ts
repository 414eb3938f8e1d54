// An 835 checked against the 005010X221A1 implementation guide (TR3), not only X12 syntax: the
// segments each loop requires, in the guide's order, the elements each requires, and the guide's code
// values (BPR01/BPR03/BPR04/BPR05, TRN01 and TRN03's form, N1 entity codes, the payer's N3/N4 and
// PER*BL, REF qualifiers per loop, CLP02/CLP06, CAS group codes and CARC shape, SVC01 qualifiers,
// SVC04 revenue codes, DTM qualifiers, LQ remark codes, PLB reason codes), and the envelope's counts.
// It reads the text itself and imports nothing of tpa's (src/), so that it is a second reading of the
// guide, not the writer's own. No npm package checks the 835's situational rules (docs/x12-835.md "835
// out": node-x12, x12-parser and @stedi/x12-tools read syntax only), hence this one.
//
// Returns every problem found, each naming the transaction, the segment's position in it (ST = 1) and
// the element: an empty list is an 835 the guide accepts.

export interface Tr3Options {
  /**
   * tpa writes `BPR04` ACH without the bank routing and account numbers (BPR06–BPR09, BPR12–BPR15),
   * which the guide requires with ACH (docs/x12-835.md "The file": tpa holds no bank accounts). True: that
   * one known deviation is not reported; everything else is.
   */
  allowMissingBankAccounts?: boolean;
}

const BPR01 = new Set(['C', 'D', 'H', 'I', 'P', 'U', 'X']);
const BPR04 = new Set(['ACH', 'BOP', 'CHK', 'FWT', 'NON']);
const CLP02 = new Set(['1', '2', '3', '4', '19', '20', '21', '22', '23', '25']);
const CLP06 = new Set(['12', '13', '14', '15', '16', '17', 'AM', 'BL', 'CH', 'CI', 'DS', 'FI', 'HM', 'LM', 'MA', 'MB', 'MC', 'OF', 'TV', 'VA', 'WC', 'ZZ']);
const CAS01 = new Set(['CO', 'OA', 'PI', 'PR']);
const SVC01 = new Set(['AD', 'ER', 'HC', 'HP', 'IV', 'N4', 'NU', 'WK']);
const PLB_REASONS = new Set([
  '50',
  '51',
  '72',
  '90',
  'AH',
  'AM',
  'AP',
  'B2',
  'B3',
  'BD',
  'BN',
  'C5',
  'CR',
  'CS',
  'CT',
  'CV',
  'CW',
  'DM',
  'E3',
  'FB',
  'FC',
  'GO',
  'HM',
  'IP',
  'IR',
  'IS',
  'J1',
  'L3',
  'L6',
  'LE',
  'LS',
  'OA',
  'OB',
  'PI',
  'PL',
  'RA',
  'RE',
  'SL',
  'TL',
  'WO',
  'WU',
]);
const PER_COMM = new Set(['EM', 'EX', 'FX', 'TE', 'UR']);
const REF_1000A = new Set(['2U', 'EO', 'HI', 'NF']);
const REF_1000B = new Set(['TJ', 'PQ', '0B', 'D3']);
const REF_2100 = new Set([
  '1L',
  '1W',
  '28',
  '6P',
  '9A',
  '9C',
  'BB',
  'CE',
  'EA',
  'F8',
  'G1',
  'G3',
  'IG',
  'SY',
  '0B',
  '1A',
  '1B',
  '1C',
  '1D',
  '1G',
  '1H',
  '1J',
  'D3',
  'G2',
  'LU',
]);
const REF_2110 = new Set([
  '1S',
  'APC',
  'BB',
  'E9',
  'G1',
  'G3',
  'LU',
  'RB',
  '6R',
  '0B',
  '1A',
  '1B',
  '1C',
  '1D',
  '1G',
  '1H',
  '1J',
  'D3',
  'G2',
  'HPI',
  'SY',
  'TJ',
  '0K',
]);
const DTM_2100 = new Set(['036', '037', '050', '232', '233']);
const DTM_2110 = new Set(['150', '151', '472']);
const AMT_2110 = new Set(['B6', 'KH', 'T', 'T2', 'ZK', 'ZL', 'ZM', 'ZN', 'ZO']);
const NM1_2100 = new Set(['QC', 'IL', '74', '82', 'TT', 'PR', 'GB', 'VY']);

const DECIMAL = /^-?(\d+(\.\d*)?|\.\d+)$/;
const CARC = /^[A-Z0-9]{1,3}$/;
const RARC = /^[A-Z]{1,2}\d{1,4}$/;

/** Whether an NPI is ten digits with its check digit right (the Luhn formula over 80840 and the first nine). */
export function npiValid(npi: string): boolean {
  if (!/^\d{10}$/.test(npi)) return false;
  const digits = `80840${npi.slice(0, 9)}`;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10 === Number(npi[9]);
}

function validDate(text: string | undefined): boolean {
  if (!text || !/^\d{8}$/.test(text)) return false;
  const d = new Date(`${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10).replace(/-/g, '') === text;
}

interface Seg {
  el: string[];
  /** Position in its transaction, ST = 1. */
  n: number;
}

/** The problems the guide finds in an 835 (empty: none). */
export function tr3Problems(text: string, options: Tr3Options = {}): string[] {
  const problems: string[] = [];
  const body = text.replace(/^\s+/, '');
  if (!body.startsWith('ISA') || body.length < 106) return ['the interchange does not start with a whole ISA'];
  const elementSep = body[3]!;
  const componentSep = body[104]!;
  const terminator = body[105]!;
  const segments = body
    .split(terminator)
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => s.split(elementSep));
  const isa = segments[0]!;
  if (isa.length !== 17) problems.push(`ISA has ${isa.length - 1} elements, not 16`);
  if (isa[12] !== '00501') problems.push(`ISA12 is ${isa[12]}, not 00501`);
  if (!/^\d{9}$/.test(isa[13] ?? '')) problems.push('ISA13 is not nine digits');
  if (!['P', 'T'].includes(isa[15] ?? '')) problems.push(`ISA15 is ${isa[15]}, not P or T`);
  for (const i of [5, 7]) if (!['01', '14', '20', '27', '28', '29', '30', '33', 'ZZ'].includes(isa[i] ?? '')) problems.push(`ISA0${i} is not an id qualifier`);
  const gs = segments[1];
  if (gs?.[0] !== 'GS') return [...problems, 'no GS after the ISA'];
  if (gs[1] !== 'HP') problems.push(`GS01 is ${gs[1]}, not HP`);
  if (gs[8] !== '005010X221A1') problems.push(`GS08 is ${gs[8]}, not 005010X221A1`);
  const iea = segments.at(-1)!;
  const ge = segments.at(-2)!;
  if (iea[0] !== 'IEA' || iea[2] !== isa[13]) problems.push('IEA02 is not ISA13');
  if (ge[0] !== 'GE' || ge[2] !== gs[6]) problems.push('GE02 is not GS06');
  let transactions = 0;
  for (let i = 2; i < segments.length - 2; ) {
    const st = segments[i]!;
    if (st[0] !== 'ST') {
      problems.push(`a ${st[0]} outside a transaction`);
      i++;
      continue;
    }
    let j = i + 1;
    while (j < segments.length - 2 && segments[j]![0] !== 'SE') j++;
    transactions++;
    const segs = segments.slice(i, j + 1).map((el, k) => ({ el, n: k + 1 }));
    problems.push(...transaction(segs, componentSep, options).map((p) => `ST ${st[2]}: ${p}`));
    i = j + 1;
  }
  if (Number(ge[1]) !== transactions) problems.push(`GE01 is ${ge[1]}, the group holds ${transactions}`);
  if (iea[1] !== '1') problems.push('IEA01 is not 1');
  return problems;
}

/** One ST…SE, loop by loop. */
function transaction(segs: Seg[], comp: string, options: Tr3Options): string[] {
  const out: string[] = [];
  const at = (s: Seg, e: number, what: string) =>
    out.push(`${s.el[0]}${s.el[1] && e !== 1 ? `*${s.el[1]}` : ''} (segment ${s.n}) ${s.el[0]}${String(e).padStart(2, '0')} ${what}`);
  const v = (s: Seg, e: number) => s.el[e] ?? '';
  const required = (s: Seg, e: number, what = 'is required') => {
    if (v(s, e) === '') at(s, e, what);
  };
  const decimal = (s: Seg, e: number, need = true) => {
    if (v(s, e) === '') {
      if (need) at(s, e, 'is required (an amount)');
    } else if (!DECIMAL.test(v(s, e))) at(s, e, `is not a decimal: ${v(s, e)}`);
  };
  const oneOf = (s: Seg, e: number, codes: ReadonlySet<string>) => {
    if (!codes.has(v(s, e))) at(s, e, `is ${JSON.stringify(v(s, e))}, not one of the guide's codes`);
  };
  const date = (s: Seg, e: number) => {
    if (!validDate(v(s, e))) at(s, e, `is not a date (CCYYMMDD): ${JSON.stringify(v(s, e))}`);
  };
  let k = 0;
  const peek = () => segs[k];
  const is = (tag: string, q?: (q: string) => boolean) => {
    const s = peek();
    return s !== undefined && s.el[0] === tag && (q === undefined || q(s.el[1] ?? ''));
  };
  const need = (tag: string, what: string, q?: (q: string) => boolean): Seg | undefined => {
    if (is(tag, q)) return segs[k++];
    out.push(`${what} (${tag}) is missing${peek() ? ` before segment ${peek()!.n} (${peek()!.el[0]})` : ''}`);
    return undefined;
  };

  const st = need('ST', 'the transaction header')!;
  if (v(st, 1) !== '835') at(st, 1, 'is not 835');
  if (v(st, 3) !== '005010X221A1') at(st, 3, 'is not 005010X221A1');

  // Header: BPR, TRN, CUR?, REF*EV?, REF*F2?, DTM*405?
  const bpr = need('BPR', 'the financial information');
  const trn = need('TRN', 'the reassociation trace number');
  if (bpr) {
    oneOf(bpr, 1, BPR01);
    decimal(bpr, 2);
    oneOf(bpr, 3, new Set(['C', 'D']));
    oneOf(bpr, 4, BPR04);
    if (v(bpr, 1) === 'H' && Number(v(bpr, 2)) !== 0) at(bpr, 2, 'must be 0 with BPR01 H (notification only)');
    if (v(bpr, 4) === 'NON' && Number(v(bpr, 2)) !== 0) at(bpr, 2, 'must be 0 with BPR04 NON');
    if (['ACH', 'BOP', 'FWT'].includes(v(bpr, 4))) {
      oneOf(bpr, 5, new Set(['CCP', 'CTX']));
      if (!options.allowMissingBankAccounts) for (const e of [6, 7, 8, 9, 12, 13, 14, 15]) required(bpr, e, `is required when BPR04 is ${v(bpr, 4)}`);
    }
    date(bpr, 16);
    if (v(bpr, 10) !== '' && trn && v(bpr, 10) !== v(trn, 3)) at(bpr, 10, `must be TRN03 (${v(trn, 3)}), is ${v(bpr, 10)}`);
  }
  if (trn) {
    if (v(trn, 1) !== '1') at(trn, 1, 'must be 1 (current transaction trace numbers)');
    required(trn, 2);
    if (v(trn, 2).length > 50) at(trn, 2, 'is longer than 50');
    if (!/^1\d{9}$/.test(v(trn, 3))) at(trn, 3, `must be 1 and the payer's nine-digit EIN, is ${JSON.stringify(v(trn, 3))}`);
  }
  if (is('CUR')) k++;
  while (is('REF', (q) => q === 'EV' || q === 'F2')) k++;
  if (is('DTM', (q) => q === '405')) date(segs[k++]!, 2);

  // Loop 1000A, the payer: N1*PR, N3, N4, REF*, PER*CX?, PER*BL+, PER*IC?
  const pr = need('N1', 'the payer (loop 1000A N1*PR)', (q) => q === 'PR');
  if (pr) required(pr, 2, "(the payer's name) is required");
  const n3 = need('N3', "the payer's address (loop 1000A)");
  if (n3) required(n3, 1);
  const n4 = need('N4', "the payer's city, state and ZIP (loop 1000A)");
  if (n4) {
    required(n4, 1);
    if (!/^[A-Z]{2}$/.test(v(n4, 2)) && v(n4, 7) === '') at(n4, 2, 'must be a state code (two letters)');
    if (!/^\d{5}(\d{4})?$/.test(v(n4, 3)) && v(n4, 4) === '') at(n4, 3, 'must be a ZIP code (five or nine digits)');
  }
  while (is('REF')) {
    const s = segs[k++]!;
    oneOf(s, 1, REF_1000A);
    required(s, 2);
  }
  if (is('PER', (q) => q === 'CX')) k++;
  let technical = 0;
  while (is('PER', (q) => q === 'BL')) {
    const s = segs[k++]!;
    technical++;
    oneOf(s, 3, PER_COMM);
    required(s, 4);
    for (const e of [5, 7])
      if (v(s, e) !== '') {
        oneOf(s, e, PER_COMM);
        required(s, e + 1);
      }
  }
  if (technical === 0) out.push("the payer's technical contact (loop 1000A PER*BL) is missing");
  if (is('PER', (q) => q === 'IC')) k++;

  // Loop 1000B, the payee: N1*PE, N3?, N4?, REF*, RDM?
  const pe = need('N1', 'the payee (loop 1000B N1*PE)', (q) => q === 'PE');
  if (pe) {
    required(pe, 2);
    oneOf(pe, 3, new Set(['FI', 'XV', 'XX']));
    required(pe, 4);
    if (v(pe, 3) === 'XX' && !npiValid(v(pe, 4))) at(pe, 4, `is not an NPI (ten digits, check digit): ${v(pe, 4)}`);
  }
  if (is('N3')) k++;
  if (is('N4')) k++;
  while (is('REF')) oneOf(segs[k++]!, 1, REF_1000B);
  if (is('RDM')) k++;

  // Loop 2000 (LX, TS3?, TS2?) with its claims (2100) and their lines (2110).
  while (is('LX')) {
    const lx = segs[k++]!;
    if (!/^\d{1,6}$/.test(v(lx, 1))) at(lx, 1, 'is not a number');
    if (is('TS3')) k++;
    if (is('TS2')) k++;
    if (!is('CLP')) out.push(`the header number LX*${v(lx, 1)} has no claim (CLP)`);
    while (is('CLP')) claim();
  }
  while (is('PLB')) {
    const s = segs[k++]!;
    required(s, 1, "(the provider's id) is required");
    date(s, 2);
    for (let e = 3; e < s.el.length; e += 2) {
      const [reason] = v(s, e).split(comp);
      if (!PLB_REASONS.has(reason ?? '')) at(s, e, `reason ${JSON.stringify(reason)} is not a PLB reason code`);
      decimal(s, e + 1);
    }
    if (s.el.length < 5) at(s, 3, 'is required (a reason and an amount)');
  }
  const se = need('SE', 'the transaction trailer');
  if (se) {
    if (Number(v(se, 1)) !== segs.length) at(se, 1, `is ${v(se, 1)}, the transaction has ${segs.length} segments`);
    if (v(se, 2) !== v(st, 2)) at(se, 2, 'is not ST02');
  }
  if (k < segs.length) out.push(`segment ${segs[k]!.n} (${segs[k]!.el[0]}) is not where the guide allows it`);
  return out;

  function cas(s: Seg): void {
    oneOf(s, 1, CAS01);
    for (let e = 2; e < s.el.length; e += 3) {
      if (v(s, e) === '' && e > 2) continue;
      if (!CARC.test(v(s, e))) at(s, e, `is not a CARC: ${JSON.stringify(v(s, e))}`);
      decimal(s, e + 1);
    }
  }

  function claim(): void {
    const clp = segs[k++]!;
    required(clp, 1, "(the provider's claim id) is required");
    if (v(clp, 1).length > 38) at(clp, 1, 'is longer than 38');
    oneOf(clp, 2, CLP02);
    decimal(clp, 3);
    decimal(clp, 4);
    decimal(clp, 5, false);
    oneOf(clp, 6, CLP06);
    required(clp, 7, "(the payer's claim control number) is required");
    if (v(clp, 8) !== '' && !/^[0-9A-Z]{1,2}$/.test(v(clp, 8))) at(clp, 8, 'is not a facility code');
    if (v(clp, 9) !== '' && !/^[0-9A-Z]$/.test(v(clp, 9))) at(clp, 9, 'is not a claim frequency code');
    while (is('CAS')) cas(segs[k++]!);
    const qc = need('NM1', 'the patient (NM1*QC)', (q) => q === 'QC');
    if (qc) {
      oneOf(qc, 2, new Set(['1']));
      if (v(qc, 8) !== '') {
        oneOf(qc, 8, new Set(['34', 'HN', 'II', 'MI', 'MR']));
        required(qc, 9);
      }
    }
    while (is('NM1', (q) => NM1_2100.has(q) && q !== 'QC')) k++;
    if (is('MIA')) k++;
    if (is('MOA')) k++;
    while (is('REF')) {
      const s = segs[k++]!;
      oneOf(s, 1, REF_2100);
      required(s, 2);
    }
    while (is('DTM')) {
      const s = segs[k++]!;
      oneOf(s, 1, DTM_2100);
      date(s, 2);
    }
    while (is('PER')) k++;
    while (is('AMT')) decimal(segs[k++]!, 2);
    while (is('QTY')) k++;
    while (is('SVC')) line();
  }

  function line(): void {
    const svc = segs[k++]!;
    const [qualifier, code] = v(svc, 1).split(comp);
    if (!SVC01.has(qualifier ?? '')) at(svc, 1, `qualifier ${JSON.stringify(qualifier)} is not one of the guide's`);
    if (!code) at(svc, 1, 'has no procedure code');
    if (qualifier === 'NU' && !/^\d{4}$/.test(code ?? '')) at(svc, 1, `NU code is not a revenue code: ${JSON.stringify(code)}`);
    decimal(svc, 2);
    decimal(svc, 3);
    if (v(svc, 4) !== '') {
      if (!/^\d{4}$/.test(v(svc, 4))) at(svc, 4, `is not a revenue code (four digits): ${v(svc, 4)}`);
      if (qualifier === 'NU') at(svc, 4, 'must be empty when SVC01 is a revenue code (NU)');
    }
    if (v(svc, 5) !== '' && !DECIMAL.test(v(svc, 5))) at(svc, 5, 'is not a quantity');
    if (v(svc, 6) !== '') {
      const [q6] = v(svc, 6).split(comp);
      if (!SVC01.has(q6 ?? '')) at(svc, 6, 'qualifier is not one of the guide’s');
    }
    while (is('DTM')) {
      const s = segs[k++]!;
      oneOf(s, 1, DTM_2110);
      date(s, 2);
    }
    while (is('CAS')) cas(segs[k++]!);
    let control = 0;
    while (is('REF')) {
      const s = segs[k++]!;
      oneOf(s, 1, REF_2110);
      required(s, 2);
      if (v(s, 1) === '6R' && ++control > 1) at(s, 1, 'a line has one line item control number');
      if (v(s, 1) === 'HPI' && !npiValid(v(s, 2))) at(s, 2, `is not an NPI: ${v(s, 2)}`);
    }
    while (is('AMT')) {
      const s = segs[k++]!;
      oneOf(s, 1, AMT_2110);
      decimal(s, 2);
    }
    while (is('QTY')) k++;
    while (is('LQ')) {
      const s = segs[k++]!;
      oneOf(s, 1, new Set(['HE', 'RX']));
      if (v(s, 1) === 'HE' && !RARC.test(v(s, 2))) at(s, 2, `is not a remark code (RARC): ${JSON.stringify(v(s, 2))}`);
    }
  }
}
