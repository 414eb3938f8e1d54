// How the verbs of `tpa local` reach the embedded engine: in-process, on this data directory,
// whatever the default profile is.
import type { EngineStorage } from '../../../local/transport.js';
import type { Engine } from '../../../engine/engine.js';
import { UsageError } from '../../../errors.js';
import type { Context } from '../../context.js';

/**
 * `tpa local` is the embedded engine's whatever the default profile is; only a profile named with
 * -p (or TPA_PROFILE) that is not local is a mistake worth stopping on.
 */
export function localOnly(ctx: Context): void {
  if (ctx.profileExplicit && ctx.profile().env !== 'local')
    throw new UsageError(`\`tpa local\` works on the embedded engine; profile "${ctx.profileName}" is ${ctx.profile().env}`);
}

export async function openEngine(ctx: Context, storage?: EngineStorage) {
  localOnly(ctx);
  const { LocalTransport } = await import('../../../local/transport.js');
  return new LocalTransport(ctx.paths.dataDir, ctx.io.env, storage, `local:${ctx.profileName}`);
}

/** `use` on the engine of this data directory, opened as `storage` says, then closed (once `use`'s promise settles). */
export async function withEngine<T>(ctx: Context, use: (engine: Engine) => T | Promise<T>, storage?: EngineStorage): Promise<T> {
  const transport = await openEngine(ctx, storage);
  try {
    return await use(await transport.open());
  } finally {
    transport.close();
  }
}
