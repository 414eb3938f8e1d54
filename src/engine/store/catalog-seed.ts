// The SSP (standard service package) catalog of the local engine: realistic
// encounter-level procedures with plausible Medicare rates, in two versions so that versions
// matter, plus inactive and non-encounter entries that the catalog must not list.
import { createHash } from 'node:crypto';

export interface SeedSsp {
  code: string;
  name: string;
  level: 'ENCOUNTER' | 'EPISODE' | 'COMPONENT';
  /** Medicare rate in cents (facility and professional together). */
  medicareRateCents: number;
  /** Relative weight, as decimal text. */
  baseWeight: string;
  primaryCpt: string;
  requiresAnesthesia: boolean;
  active: boolean;
}

const s = (code: string, name: string, medicare: number, weight: string, cpt: string, anesthesia: boolean, extra: Partial<SeedSsp> = {}): SeedSsp => ({
  code,
  name,
  level: 'ENCOUNTER',
  medicareRateCents: medicare,
  baseWeight: weight,
  primaryCpt: cpt,
  requiresAnesthesia: anesthesia,
  active: true,
  ...extra,
});

export const CATALOG_V1_0: readonly SeedSsp[] = [
  s('GI-0101', 'Colonoscopy, diagnostic', 85000, '1.0000', '45378', true),
  s('GI-0102', 'Colonoscopy with biopsy', 98000, '1.1529', '45380', true),
  s('GI-0103', 'Colonoscopy with snare polypectomy', 110000, '1.2941', '45385', true),
  s('GI-0201', 'Upper GI endoscopy, diagnostic', 70000, '0.8235', '43235', true),
  s('GI-0202', 'Upper GI endoscopy with biopsy', 78000, '0.9176', '43239', true),
  s('OR-0301', 'Knee arthroscopy with meniscectomy', 310000, '3.6471', '29881', true),
  s('OR-0302', 'Knee arthroscopy, medial and lateral meniscectomy', 325000, '3.8235', '29880', true),
  s('OR-0303', 'Anterior cruciate ligament reconstruction', 620000, '7.2941', '29888', true),
  s('OR-0304', 'Shoulder arthroscopy with rotator cuff repair', 710000, '8.3529', '29827', true),
  s('OR-0305', 'Shoulder arthroscopy with subacromial decompression', 260000, '3.0588', '29826', true),
  s('OR-0306', 'Total knee arthroplasty', 1450000, '17.0588', '27447', true),
  s('OR-0307', 'Total hip arthroplasty', 1480000, '17.4118', '27130', true),
  s('OR-0308', 'Bunionectomy with osteotomy', 270000, '3.1765', '28296', true),
  s('HD-0401', 'Carpal tunnel release', 160000, '1.8824', '64721', true),
  s('HD-0402', 'Trigger finger release', 130000, '1.5294', '26055', false),
  s('HD-0403', 'Excision of ganglion cyst, wrist', 150000, '1.7647', '25111', true),
  s('EY-0501', 'Cataract removal with intraocular lens', 190000, '2.2353', '66984', true),
  s('EY-0502', 'Complex cataract removal with intraocular lens', 230000, '2.7059', '66982', true),
  s('EY-0503', 'Upper eyelid blepharoplasty', 220000, '2.5882', '15823', true),
  s('SP-0601', 'Lumbar laminotomy with discectomy', 980000, '11.5294', '63030', true),
  s('SP-0602', 'Anterior cervical discectomy and fusion', 1850000, '21.7647', '22551', true),
  s('SP-0603', 'Lumbar epidural steroid injection with imaging', 65000, '0.7647', '62323', false),
  s('SP-0604', 'Transforaminal epidural injection, lumbar', 70000, '0.8235', '64483', false),
  s('GS-0701', 'Laparoscopic cholecystectomy', 560000, '6.5882', '47562', true),
  s('GS-0702', 'Open inguinal hernia repair', 340000, '4.0000', '49505', true),
  s('GS-0703', 'Laparoscopic inguinal hernia repair', 390000, '4.5882', '49650', true),
  s('GS-0704', 'Laparoscopic appendectomy', 520000, '6.1176', '44970', true),
  s('GS-0705', 'Excision of breast lesion', 280000, '3.2941', '19120', true),
  s('GS-0706', 'Partial mastectomy', 410000, '4.8235', '19301', true),
  s('GY-0801', 'Hysteroscopy with biopsy or polypectomy', 240000, '2.8235', '58558', true),
  s('GY-0802', 'Laparoscopic hysterectomy', 890000, '10.4706', '58571', true),
  s('UR-0901', 'Cystoscopy, diagnostic', 65000, '0.7647', '52000', false),
  s('UR-0902', 'Ureteroscopy with lithotripsy and stent', 420000, '4.9412', '52356', true),
  s('UR-0903', 'Prostate biopsy, needle', 120000, '1.4118', '55700', false),
  s('UR-0904', 'Extracorporeal shock wave lithotripsy', 320000, '3.7647', '50590', true),
  s('EN-1001', 'Septoplasty', 330000, '3.8824', '30520', true),
  s('EN-1002', 'Endoscopic total ethmoidectomy', 360000, '4.2353', '31255', true),
  s('EN-1003', 'Tonsillectomy and adenoidectomy, under age 12', 210000, '2.4706', '42820', true),
  s('EN-1004', 'Tympanostomy tubes, general anesthesia', 140000, '1.6471', '69436', true),
  s('CV-1101', 'Left heart catheterization', 390000, '4.5882', '93458', false),
  s('CV-1102', 'Coronary stent placement, single vessel', 820000, '9.6471', '92928', false),
  s('CV-1103', 'Dual-chamber pacemaker insertion', 950000, '11.1765', '33208', false),
  s('MS-1201', 'Wound debridement, subcutaneous tissue', 35000, '0.4118', '11042', false),
  s('MS-1202', 'Major joint injection or aspiration', 18000, '0.2118', '20610', false),
  // Not listed by the catalog: inactive, and packages of other levels.
  s('GI-0199', 'Colonoscopy package (retired)', 80000, '0.9412', '45378', true, { active: false }),
  s('OR-0399', 'Knee arthroscopy, legacy bundle (retired)', 300000, '3.5294', '29881', true, { active: false }),
  s('EY-0599', 'Cataract, bilateral same day (retired)', 360000, '4.2353', '66984', true, { active: false }),
  s('OR-E001', 'Total joint replacement episode, 90 days', 2600000, '30.5882', '27447', true, { level: 'EPISODE' }),
  s('GI-C001', 'Colonoscopy facility component', 55000, '0.6471', '45378', false, { level: 'COMPONENT' }),
  s('AN-C001', 'Monitored anesthesia care component', 25000, '0.2941', '00811', false, { level: 'COMPONENT' }),
];

/** v1.1: updated Medicare rates for three packages, one added, one retired. */
export const CATALOG_V1_1: readonly SeedSsp[] = [
  ...CATALOG_V1_0.filter((x) => x.code !== 'SP-0604').map((x) =>
    x.code === 'GI-0101'
      ? { ...x, medicareRateCents: 87500 }
      : x.code === 'OR-0306'
        ? { ...x, medicareRateCents: 1425000 }
        : x.code === 'EY-0501'
          ? { ...x, medicareRateCents: 195000 }
          : x,
  ),
  { ...CATALOG_V1_0.find((x) => x.code === 'SP-0604')!, active: false },
  s('OR-0309', 'Hammertoe correction', 180000, '2.1176', '28285', true),
];

export const CATALOG_VERSIONS: Record<string, readonly SeedSsp[]> = { 'v1.0': CATALOG_V1_0, 'v1.1': CATALOG_V1_1 };
export const CURRENT_CATALOG_VERSION = 'v1.1';

/** A stable UUID for an SSP of a version (name-based, so seeds and docs agree across machines). */
export function sspUuid(version: string, code: string): string {
  const h = createHash('sha1').update(`tpa-ssp:${version}:${code}`).digest('hex');
  // Version 5 (name-based, SHA-1) layout with the RFC 4122 variant.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${h.slice(18, 20)}-${h.slice(20, 32)}`;
}
