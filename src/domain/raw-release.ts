// A fund release sent as a raw request (`tpa api`): the body must be the release itself, one JSON
// object of exactly encounter_id (text), amount (a plain JSON number of at most two decimals) and
// authorization_code (text), and the contract's optional notes (text), so that what is confirmed, sent and recorded in the fund history is one
// and the same release. Anything else is refused before sending: the service refuses it too.
import { MAX_AMOUNT_CENTS, parseCents } from './money.js';

export interface RawRelease {
  encounter_id: string;
  /** The amount in cents, read from the JSON text sent (never from a rounded double). */
  cents: number;
  /** The amount as a JSON number, as sent. */
  amount: number;
  authorization_code: string;
}

const KEYS = ['encounter_id', 'amount', 'authorization_code'];
/** The contract's optional field of a release, text too. */
const OPTIONAL = ['notes'];
const SHAPE = 'a fund release is one JSON object of encounter_id (text), amount (a number) and authorization_code (text), notes (text) optional';

/** The release a body holds, or why it is not one (a sentence). `text` is the body as sent. */
export function rawRelease(text: string | undefined): RawRelease | string {
  if (text === undefined) return `${SHAPE}, and this request has no body`;
  const members = topLevelMembers(text);
  if (typeof members === 'string') return `${SHAPE}: ${members}`;
  const keys = members.map((m) => m.key);
  const extra = keys.filter((k) => !KEYS.includes(k) && !OPTIONAL.includes(k));
  if (extra.length > 0) return `${SHAPE}, nothing else (it holds ${extra.map((k) => JSON.stringify(k)).join(', ')})`;
  const missing = KEYS.filter((k) => !keys.includes(k));
  if (missing.length > 0) return `${SHAPE}: ${missing.join(', ')} missing`;
  const value = (key: string) => members.find((m) => m.key === key)!;
  if (keys.includes('notes') && value('notes').kind !== 'string') return `${SHAPE}: notes must be text`;
  for (const key of ['encounter_id', 'authorization_code']) {
    const v = value(key);
    if (v.kind !== 'string' || (JSON.parse(v.raw) as string).trim() === '') return `${SHAPE}: ${key} must be non-empty text`;
  }
  const amount = value('amount');
  const cents = amount.kind === 'number' ? parseCents(amount.raw) : undefined;
  if (amount.kind !== 'number' || cents === undefined || !/^\d+(\.\d{1,2})?$/.test(amount.raw) || cents > MAX_AMOUNT_CENTS)
    return `${SHAPE}: amount must be a plain JSON number of dollars with at most two decimals (such as 284 or 284.50), not ${amount.kind === 'number' ? amount.raw : `a ${amount.kind}`}`;
  return {
    encounter_id: JSON.parse(value('encounter_id').raw) as string,
    cents,
    amount: Number(amount.raw),
    authorization_code: JSON.parse(value('authorization_code').raw) as string,
  };
}

type Member = { key: string; kind: 'string' | 'number' | 'other'; raw: string };

// biome-ignore lint/suspicious/noControlCharactersInRegex: a control is never inside a JSON string
const TOKEN = /\s*("(?:[^"\\\u0000-\u001f]|\\.)*"|-?\d[\d.eE+-]*|[{}[\]:,]|true|false|null)\s*/y;

/**
 * The members of a top-level JSON object whose values are plain (text, numbers, true, false, null),
 * each value's JSON text as written; or why the text is not such an object. A key given twice is
 * refused: a service may read either.
 */
function topLevelMembers(text: string): Member[] | string {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (!m || TOKEN.lastIndex === at) return 'the body is not JSON';
    tokens.push(m[1]!);
  }
  if (tokens[0] !== '{' || tokens.at(-1) !== '}') return 'the body is not a JSON object';
  const members: Member[] = [];
  let i = 1;
  while (i < tokens.length - 1) {
    const [k, colon, v, sep] = [tokens[i], tokens[i + 1], tokens[i + 2], tokens[i + 3]];
    if (!k?.startsWith('"') || colon !== ':' || v === undefined || (sep !== ',' && i + 3 !== tokens.length - 1))
      return 'its values must be plain: text or a number, no list or object';
    let key: string;
    try {
      key = JSON.parse(k) as string;
    } catch {
      return 'the body is not JSON';
    }
    if (members.some((m) => m.key === key)) return `the key ${key} is given twice`;
    const kind = v.startsWith('"') ? 'string' : /^-?\d/.test(v) ? 'number' : /^[{[]/.test(v) ? undefined : 'other';
    if (kind === undefined) return 'its values must be plain: text or a number, no list or object';
    members.push({ key, kind, raw: v });
    i += 4;
  }
  return members;
}
