// tpa local keys list: every key of this engine, and what became of it.
import type { TableTools } from '../../../../render/output.js';
import { verb } from '../../../verb.js';
import { withEngine } from '../engine.js';

/** A key's fields: `--json` selects from them, and they are the CSV header, written even when there is none. */
const KEY_FIELDS = ['id', 'environment', 'prefix', 'last4', 'scopes', 'status', 'lineage', 'rotated_from', 'created_at', 'expires_at', 'revoked_at'];

export const list = verb({
  name: 'list',
  description: 'every key: id, prefix and last four, scopes, status (active, rotated, expired, revoked), the key it was rotated from',
  fields: KEY_FIELDS,
  examples: ['tpa local keys list', 'tpa local keys list -o json | jq \'.[] | select(.status == "active")\''],
  async run(ctx) {
    const keys = await withEngine(ctx, (e) => e.listKeys());
    const status = (t: TableTools, k: (typeof keys)[number]) =>
      k.status === 'active'
        ? t.c.green('active')
        : k.status === 'rotated'
          ? t.c.yellow(`rotated, works until ${k.expires_at}`)
          : k.status === 'revoked'
            ? t.c.red(`revoked ${k.revoked_at}`)
            : `expired ${k.expires_at}`;
    return {
      data: keys,
      items: keys,
      columns: KEY_FIELDS,
      table: (t) =>
        t.table(
          ['Id', 'Env', 'Key', 'Scopes', 'Status', 'Rotated from', 'Created'],
          keys.map((k) => [k.id, k.environment, `${k.prefix}…${k.last4}`, k.scopes.join(', '), status(t, k), k.rotated_from ?? '—', k.created_at]),
        ),
    };
  },
});
