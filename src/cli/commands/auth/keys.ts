// tpa auth keys: the service's active API keys, each by prefix and last four only.
import type { ApiKeyInfo } from '../../../client/types.js';
import { fieldsOf, verb } from '../../verb.js';

const masked = (id: string | null, prefix?: string, last4?: string) => (prefix && last4 ? `${prefix}…${last4}` : (id ?? '—'));

/** A key's fields: `--json` selects from them, and they are the CSV header, written even when there is none. */
const KEY_FIELDS = fieldsOf<ApiKeyInfo>({ id: true, prefix: true, last4: true, scopes: true, created_at: true, expires_at: true });

export const keys = verb({
  name: 'keys',
  description: "the service's active API keys (prefix and last four only)",
  fields: KEY_FIELDS,
  examples: ['tpa auth keys -p sandbox'],
  async run(ctx) {
    const body = (await (await ctx.client()).keys()).body;
    return {
      data: body,
      items: body.keys,
      columns: KEY_FIELDS,
      table: (t) =>
        t.table(
          ['Id', 'Key', 'Scopes', 'Created', 'Expires'],
          body.keys.map((k) => [k.id, masked(k.id, k.prefix, k.last4), k.scopes.join(', '), k.created_at, k.expires_at ?? 'never']),
        ),
    };
  },
});
