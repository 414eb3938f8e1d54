// tpa local clients list: the registered OAuth clients, their scopes and whether they were revoked.
import type { TableTools } from '../../../../render/output.js';
import type { ClientRegistration } from '../../../../engine/services/oauth.js';
import { fieldsOf, verb } from '../../../verb.js';
import { withEngine } from '../engine.js';

/** A client's fields: `--json` selects from them, and they are the CSV header, written even when there is none. */
const CLIENT_FIELDS = fieldsOf<ClientRegistration>({ client_id: true, scopes: true, status: true, registered_at: true, revoked_at: true });

export const list = verb({
  name: 'list',
  description: 'the registered clients: scopes, status (active, revoked)',
  fields: CLIENT_FIELDS,
  examples: ['tpa local clients list'],
  async run(ctx) {
    const clients = await withEngine(ctx, (e) => e.listClients());
    const status = (t: TableTools, c: (typeof clients)[number]) => (c.status === 'active' ? t.c.green('active') : t.c.red(`revoked ${c.revoked_at}`));
    return {
      data: clients,
      items: clients,
      columns: CLIENT_FIELDS,
      table: (t) =>
        t.table(
          ['Client', 'Scopes', 'Status', 'Registered'],
          clients.map((c) => [c.client_id, c.scopes.join(', '), status(t, c), c.registered_at]),
        ),
    };
  },
});
