// A response body the engine can hand over in two forms: the JSON text the transports send, and the
// plain JSON values an in-process caller reads. A ledger page is one: over HTTP, writing its text
// straight from the rows is cheaper than building objects and serialising them; in-process, building
// the objects straight from the rows is cheaper than writing that text and parsing it again.
import { JsonText } from './exchange.js';

export abstract class PageBody<Rows> {
  private rows: Rows | undefined;
  private written: JsonText | undefined;

  constructor(rows: Rows) {
    this.rows = rows;
  }

  /**
   * The body as the JSON text the transports send, written once and the same JsonText each time: a
   * page the read cache keeps may be sent many times.
   */
  sendable(): JsonText {
    if (this.written === undefined) {
      this.written = new JsonText(this.write(this.rows!));
      // Once written (it is being sent), the text is all a cached page keeps.
      this.rows = undefined;
    }
    return this.written;
  }

  /** The body as the plain JSON values JSON.parse(this.sendable().text) gives, built fresh for each caller. */
  values(): unknown {
    return this.rows === undefined ? JSON.parse(this.written!.text) : this.build(this.rows);
  }

  /**
   * The body as values whose list rows stay JSON text (domain/json-row.ts), for an in-process caller
   * that prints rows as they are; the values of `values()` where the page has no such form.
   */
  textRows(): unknown {
    return this.rows === undefined ? this.values() : (this.rowTexts?.(this.rows) ?? this.build(this.rows));
  }

  /** The body with each list row as a JsonRow, if the page has that form. */
  protected rowTexts?(rows: Rows): unknown;
  /** The JSON text of the rows. */
  protected abstract write(rows: Rows): string;
  /** The values of the rows, key for key and number for number what `write` writes. */
  protected abstract build(rows: Rows): unknown;
}
