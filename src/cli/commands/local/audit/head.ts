// tpa local audit head: the last record's number and hash, to keep outside the database.
import type { TableTools } from '../../../../render/output.js';
import { verb } from '../../../verb.js';
import { withEngine } from '../engine.js';

export const head = verb({
  name: 'head',
  description: 'the last record: its number and hash, to keep outside the database (a ticket, another machine, a printed log)',
  fields: ['seq', 'hash'],
  examples: ['tpa local audit head', 'tpa local audit head -o json'],
  async run(ctx) {
    const head = await withEngine(ctx, (e) => e.auditHead());
    return {
      data: head,
      table: (t: TableTools) =>
        `${t.keyValues([
          ['Record', String(head.seq)],
          ['Head hash', head.hash],
        ])}\nkeep it outside this machine; later: tpa local audit verify --expect-head ${head.hash}`,
    };
  },
});
