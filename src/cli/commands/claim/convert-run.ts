// `tpa claim convert`'s work: the X12 files of the paths (folders: their files starting with ISA) read a
// claim at a time (x12-source.ts), each checked with the engine's rules; the claims that would be
// sent are written as they come (ndjson: one a line; json: one FHIR Bundle written as it grows; shaped
// by --json <fields>, --jq or --template a claim at a time), the others said on stderr with their places. Memory does not grow with the number of claims.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT, ValidationFailed } from '../../../errors.js';
import { count } from '../../../render/format.js';
import type { CommandOutput } from '../../../render/output.js';
import { screen } from '../../../render/screen.js';
import { rowWriter } from '../../../render/stream.js';
import type { Context } from '../../context.js';
import { keepHeapFlat } from '../../heap.js';
import { checkClaim, sameIdentitySaid, errorLine } from './claim-check.js';
import { noteText, skippedNote } from './skipped.js';
import { folderEntry, folderNames } from './submit-sources.js';
import { isX12Entry, X12_BY_CONTENT } from './x12-files.js';
import { x12Claims } from './x12-source.js';

/** The X12 files of the paths: a file as named, a folder's X12 files by content (not recursive). */
function x12Files(paths: readonly string[], note: (m: string) => void): string[] {
  const files: string[] = [];
  for (const path of paths) {
    if (!statSync(path).isDirectory()) {
      files.push(path);
      continue;
    }
    const all = folderNames(path, note);
    // X12 by its content (a regular file starting with ISA), whatever its name.
    const x12 = new Set(all.filter((n) => isX12Entry(path, n)));
    const names = all.filter((n) => x12.has(n)).sort();
    if (names.length === 0) note(`${path}: no X12 files (${X12_BY_CONTENT})`);
    const skipped = skippedNote(
      path,
      all.filter((n) => !x12.has(n)),
      `claim convert reads X12 files (${X12_BY_CONTENT})`,
    );
    if (skipped) note(skipped);
    // A symbolic link that leads nowhere is skipped with a note, as claim submit skips it.
    files.push(...names.map((n) => join(path, n)).filter((file) => folderEntry(file, note) !== undefined));
  }
  return files;
}

/** A FHIR Bundle written an entry at a time: byte for byte JSON.stringify(bundle, null, 2). */
function bundleWriter(write: (text: string) => void) {
  let n = 0;
  write('{\n  "resourceType": "Bundle",\n  "type": "collection",\n  "entry": [');
  return {
    add(resource: unknown) {
      write(`${n++ === 0 ? '\n' : ',\n'}    ${JSON.stringify({ resource }, null, 2).replace(/\n/g, '\n    ')}`);
    },
    end() {
      write(n === 0 ? ']\n}\n' : '\n  ]\n}\n');
    },
  };
}

export async function convertX12(ctx: Context, paths: readonly string[], format: 'ndjson' | 'json'): Promise<CommandOutput> {
  keepHeapFlat(5);
  const out = ctx.io.stdout;
  let valid = 0;
  let invalid = 0;
  // Written in slices: one write a claim costs more than the conversion itself.
  let pending = '';
  const flush = () => {
    if (pending === '') return;
    out.write(pending);
    pending = '';
  };
  const emit = (text: string) => {
    pending += text;
    if (pending.length >= 64 * 1024) flush();
  };
  // --json <fields>, --jq or --template: the Claims as records, shaped a claim at a time (a JSON
  // array or a Claim a line with -o ndjson), not a Bundle.
  const shaped = ctx.shape ? rowWriter<unknown>(format, { write: emit }, undefined, undefined, ctx.shape) : undefined;
  const bundle = format === 'json' && !shaped ? bundleWriter(emit) : undefined;
  try {
    const sameIdentity = sameIdentitySaid();
    // What the readers say is a note (`note: …`), told from the refusals of claims.
    const note = (m: string) => ctx.note(noteText(m));
    for (const file of x12Files(paths, note)) {
      for await (const item of x12Claims(file, note)) {
        const { checked } = checkClaim(sameIdentity(item));
        if (!checked.valid) {
          invalid++;
          for (const e of checked.errors) ctx.note(screen(errorLine(checked.source, e)));
          continue;
        }
        valid++;
        if (shaped) shaped.write([item.value]);
        else if (bundle) bundle.add(item.value);
        else emit(`${item.text}\n`);
      }
    }
  } finally {
    shaped?.end();
    bundle?.end();
    flush();
  }
  if (valid + invalid === 0) throw new ValidationFailed(`no claim in ${paths.join(', ')}`);
  const claims = (n: number) => `${count(n)} claim${n === 1 ? '' : 's'}`;
  ctx.note(
    `${claims(valid + invalid)}: ${count(valid)} converted${invalid > 0 ? `, ${count(invalid)} not (problems above; they would not be sent)` : ''}; nothing was sent`,
  );
  return { exitCode: invalid > 0 ? EXIT.USAGE : EXIT.OK };
}
