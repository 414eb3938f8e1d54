// tpa auth rotate: a new API key from the service, saved where the old one was; the old one keeps
// working for 24 hours, so the new one is never lost (shown once when it cannot be saved).
import { AuthError, UsageError } from '../../../errors.js';
import { verb } from '../../verb.js';

export const rotate = verb({
  name: 'rotate',
  description: 'get a new API key and save it; the old one keeps working for 24 hours',
  examples: ['tpa auth rotate -p sandbox'],
  async run(ctx) {
    const profile = ctx.profile();
    if (profile.env === 'local')
      throw new UsageError('the embedded engine in-process has no API key to rotate: use a profile that talks to a service (-p sandbox)');
    if (profile.env === 'production') throw new UsageError('production uses OAuth tokens, not API keys: there is no key to rotate');
    const { saveApiKey, openStore } = await import('../../../auth/credentials.js');
    // Make sure the new key can be kept before the service issues it.
    await openStore(ctx.paths, ctx.io.env, ctx.note);
    const body = (await (await ctx.client()).rotateKey()).body;
    const fromEnv = Boolean(ctx.io.env.TPA_API_KEY);
    if (fromEnv) {
      // The key in use came from the environment, so there is nowhere to save the new one but the terminal.
      ctx.note('TPA_API_KEY is set, so the new key is not saved: it is printed once on stdout; put it where TPA_API_KEY comes from');
      ctx.io.stdout.write(`${body.api_key}\n`);
      return { exitCode: 0 };
    }
    let store;
    try {
      store = await saveApiKey(ctx.paths, profile.name, body.api_key, ctx.io.env, ctx.note);
    } catch (err) {
      // The old key dies in 24 hours: the new one must not be lost. Shown once, on stderr.
      ctx.note(`could not save the new key (${(err as Error).message}); here it is, once: ${body.api_key}`);
      throw new AuthError('the new key was issued but not saved: save it yourself (TPA_API_KEY or tpa auth login --with-key-stdin)');
    }
    ctx.note(`saved the new key for profile "${profile.name}" in ${store.location}; the old key stops working at ${body.previous_key_expires_at}`);
    const out = { key_id: body.key_id, previous_key_expires_at: body.previous_key_expires_at, saved_to_profile: profile.name };
    return {
      data: out,
      table: (t) =>
        t.keyValues([
          ['New key', body.key_id],
          ['Old key stops working', body.previous_key_expires_at],
          ['Saved to profile', profile.name],
        ]),
    };
  },
});
