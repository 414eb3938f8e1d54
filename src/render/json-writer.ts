// Records written as JSON as they arrive: one array that grows, or a line each (ndjson); the text is
// the same as writing the whole list at once.
import { JsonRow } from '../domain/json-row.js';

export interface Sink {
  write(text: string): void;
}

export interface RowWriter<T> {
  write(rows: readonly T[]): void;
  end(): void;
}

/** A line per record; a record that comes as its JSON text (a JsonRow) as that text. One write a page. */
export function ndjsonWriter<T>(out: Sink): RowWriter<T> {
  return {
    write(rows) {
      let text = '';
      for (const r of rows) text += `${r instanceof JsonRow ? r.text : JSON.stringify(r)}\n`;
      if (text !== '') out.write(text);
    },
    end: () => undefined,
  };
}

/** Exactly JSON.stringify(all, null, 2): "[", each item indented by two, ",", "]". */
export function jsonWriter<T>(out: Sink): RowWriter<T> {
  let count = 0;
  return {
    write(rows) {
      const text = rows.map((r) => `  ${JSON.stringify(r, null, 2).replace(/\n/g, '\n  ')}`).join(',\n');
      if (text === '') return;
      out.write(`${count === 0 ? '[\n' : ',\n'}${text}`);
      count += rows.length;
    },
    end: () => out.write(count === 0 ? '[]\n' : '\n]\n'),
  };
}
