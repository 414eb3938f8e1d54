// tpa local clients revoke: an OAuth client of the mutual-TLS server and its live tokens ended at once.
import { NotFoundError } from '../../../../errors.js';
import { confirm } from '../../../prompt.js';
import { argument, verb } from '../../../verb.js';
import { withEngine } from '../engine.js';

export const revoke = verb({
  name: 'revoke',
  description:
    'revoke a client at once: its certificates get no token, its live tokens get 401 from their next request, and its id is never registered again (asks; --yes to skip)',
  args: { clientId: argument.required('<client_id>', 'a client id, as tpa local clients list shows it') },
  examples: ['tpa local clients revoke reports-only', 'tpa local clients revoke reports-only --yes'],
  async run(ctx, { clientId }) {
    const known = await withEngine(ctx, (e) => e.listClients());
    const client = known.find((c) => c.client_id === clientId);
    if (!client) throw new NotFoundError(`no client ${clientId} in this engine: tpa local clients list shows them`);
    if (client.status === 'active') {
      await confirm(
        ctx,
        `Revoke client ${clientId} (${client.scopes.join(', ')})? Its certificates get no token and its tokens get 401 from the next request on; ${clientId} cannot be registered again.`,
      );
    }
    const result = await withEngine(ctx, (e) => e.revokeClient(clientId));
    if (!result) throw new NotFoundError(`no client ${clientId} in this engine: tpa local clients list shows them`);
    ctx.note(
      result.revoked
        ? `revoked client ${clientId} (${result.tokens === 0 ? 'no live token' : result.tokens === 1 ? '1 live token' : `${result.tokens} live tokens`}): from now on it gets no token, and its tokens get 401`
        : `nothing to revoke: client ${clientId} was revoked already, at ${result.revoked_at}`,
    );
    return { data: result };
  },
});
