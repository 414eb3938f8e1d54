// Config and credentials files: written atomically (temp file, then rename) with mode 0600, so a
// crash never leaves half a file and no other user can read them.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { replaceWhole } from '../files/write-whole.js';
import { UsageError } from '../errors.js';

export function writePrivateJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  replaceWhole(file, `${JSON.stringify(value, null, 2)}\n`);
}

export function readJson<T>(file: string, fallback: T): T {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new UsageError(`${file} is not valid JSON; fix it or remove it`);
  }
}
