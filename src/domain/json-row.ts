// A row of a list as the service writes it: its JSON text, exactly what JSON.stringify of its
// values gives, and the id that tells it from the other rows. An in-process listing that prints
// rows as they are (`--all -o ndjson`) takes them so, instead of values built from the rows and
// written out again (docs/local.md "The ledger at volume").

export class JsonRow {
  constructor(
    /** The row's identity in its list (a ledger entry's encounter id). */
    readonly id: string,
    /** The row as compact JSON text. */
    readonly text: string,
  ) {}
}
