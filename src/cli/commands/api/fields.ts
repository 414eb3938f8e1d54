// The fields of `tpa api -f/-F` (docs/scripting.md "tpa api"), read as gh reads them: `key=value`,
// `key[]=value` (a list), `key[sub]=value` (an object), `key[]` alone (an empty list). `-F` types
// its value; `-f` keeps it text. They become a JSON body, or a query string (GET, HEAD, or a body
// given whole). Pure: a value read from a file (`-F key=@file`) arrives read.

export interface FieldText {
  /** The key as typed, brackets and all (`lines[][code]`). */
  key: string;
  /** The value's text; undefined for `key[]` given without `=`. */
  value: string | undefined;
}

/** `key=value` split at the first `=` that is not inside brackets; a usage problem as a sentence. */
export function splitField(text: string, flag: string): FieldText | string {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '[') depth++;
    else if (c === ']') depth = Math.max(0, depth - 1);
    else if (c === '=' && depth === 0)
      return i === 0 ? `${flag} "${text}": a field is key=value, and the key is empty` : { key: text.slice(0, i), value: text.slice(i + 1) };
  }
  return text.endsWith('[]') && text.length > 2 ? { key: text, value: undefined } : `${flag} "${text}": a field is key=value (or key[] for an empty list)`;
}

/** The segments of a key: `a[b][]` → ["a", "b", ""]; undefined when the brackets do not close. */
function keyPath(key: string): string[] | undefined {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!m) return undefined;
  return [m[1]!, ...[...m[2]!.matchAll(/\[([^[\]]*)\]/g)].map((s) => s[1]!)];
}

/**
 * A typed value as `-F` reads it: `true`, `false`, `null`, and a number written in plain digits
 * (`2040`, `-3`, `1245.67`) become JSON values; anything else stays text. A number becomes a JSON
 * number only when that number is exactly the decimal typed (trailing zeros of a fraction aside):
 * one too long for a double (`12345678901234567890`, `0.1000000000000000055511`) stays text, so
 * that what is sent is what was typed, never a rounding of it (an amount the service then refuses
 * as not a number rather than one it pays). Leading zeros (`007`, a code) stay text too.
 */
export function typedValue(text: string): unknown {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (!/^-?(0|[1-9]\d*)(\.\d+)?$/.test(text)) return text;
  const n = Number(text);
  const typed = text.includes('.') ? text.replace(/\.?0+$/, '') : text;
  // -0 prints as "0": typed "-0" stays text rather than lose its sign.
  return String(n) === typed && !Object.is(n, -0) ? n : text;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };
/** The fields of one request, as one JSON object. */
export type Fields = Obj;

/**
 * The fields as one object, in the order given. A key given twice (`-f a=1 -f a=2`), or a key both
 * a value and an object, is refused as gh refuses it: which one is meant is not for tpa to guess.
 */
export function buildFields(fields: readonly { key: string; value: unknown }[]): Obj | string {
  const root: Obj = Object.create(null);
  for (const { key, value } of fields) {
    const path = keyPath(key);
    if (!path) return `the field key "${key}" is not name, name[] or name[sub]`;
    const problem = place(root, path, value as Json | undefined, key);
    if (problem) return problem;
  }
  return { ...root };
}

function place(into: Obj, path: string[], value: Json | undefined, key: string): string | undefined {
  let at: Obj = into;
  for (let i = 0; i < path.length; i++) {
    const name = path[i]!;
    const last = i === path.length - 1;
    const list = path[i + 1] === '';
    if (name === '') return `the field key "${key}": [] is only a list's last part, or before [sub] for a list of objects`;
    if (last) {
      if (name in at) return `the field ${key} is given twice`;
      at[name] = value ?? null;
      return undefined;
    }
    if (list) {
      const existing = at[name];
      if (existing !== undefined && !Array.isArray(existing)) return `the field ${key}: ${name} is already a value, not a list`;
      const items: Json[] = existing ?? [];
      at[name] = items;
      if (i + 2 >= path.length) {
        if (value !== undefined) items.push(value as Json);
        return undefined;
      }
      // key[][sub]=v: the last object of the list, or a new one when it has sub already (gh's rule).
      const sub = path[i + 2]!;
      const lastItem = items.at(-1);
      const reuse = typeof lastItem === 'object' && lastItem !== null && !Array.isArray(lastItem) && !(sub in lastItem);
      const item: Obj = reuse ? (lastItem as Obj) : Object.create(null);
      if (!reuse) items.push(item);
      return place(item, path.slice(i + 2), value, key);
    }
    const existing = at[name];
    if (existing !== undefined && (typeof existing !== 'object' || existing === null || Array.isArray(existing)))
      return `the field ${key}: ${name} is already a value, not an object`;
    const next: Obj = existing ?? Object.create(null);
    at[name] = next;
    at = next;
  }
  return undefined;
}

/** The fields as a query string, as gh writes one: `key=v`, `key[]=v` for a list, `key[sub]=v` for an object. */
export function queryOf(fields: Obj): string {
  const q = new URLSearchParams();
  const add = (name: string, value: Json) => {
    if (Array.isArray(value)) for (const v of value) add(`${name}[]`, v);
    else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) add(`${name}[${k}]`, v);
    else q.append(name, value === null ? '' : String(value));
  };
  for (const [k, v] of Object.entries(fields)) add(k, v);
  return q.toString();
}
