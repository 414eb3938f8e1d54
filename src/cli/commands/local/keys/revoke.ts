// tpa local keys revoke: a key and its whole lineage revoked at once.
import { NotFoundError } from '../../../../errors.js';
import { confirm } from '../../../prompt.js';
import { argument, verb } from '../../../verb.js';
import { withEngine } from '../engine.js';

export const revoke = verb({
  name: 'revoke',
  description: 'revoke a key at once, with every key of its lineage (rotated from it or to it): their next request is 401 (asks; --yes to skip)',
  args: { keyId: argument.required('<key_id>', 'a key id, as tpa local keys list shows it') },
  examples: ['tpa local keys revoke key_3b302036a412ed8b', 'tpa local keys revoke key_3b302036a412ed8b --yes'],
  async run(ctx, { keyId }) {
    const known = await withEngine(ctx, (e) => e.listKeys());
    const key = known.find((k) => k.id === keyId);
    if (!key) throw new NotFoundError(`no key ${keyId} in this engine: tpa local keys list shows them`);
    const lineage = known.filter((k) => k.lineage === key.lineage && k.status !== 'revoked' && k.status !== 'expired');
    if (lineage.length > 0) {
      await confirm(
        ctx,
        `Revoke ${lineage.map((k) => `${k.id} (${k.prefix}…${k.last4})`).join(', ')}? Whoever holds ${lineage.length === 1 ? 'it' : 'them'} gets 401 from the next request on.`,
      );
    }
    const result = (await withEngine(ctx, (e) => e.revokeKey(keyId)))!;
    ctx.note(
      result.revoked.length === 0
        ? `nothing to revoke: every key of the lineage of ${keyId} was revoked already`
        : `revoked ${result.revoked.join(', ')}: from now on their requests get 401`,
    );
    return { data: { key_id: keyId, lineage: result.lineage, revoked: result.revoked } };
  },
});
