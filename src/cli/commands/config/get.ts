// tpa config get: one setting of config.json.
import { readConfig } from '../../../auth/config.js';
import { NotFoundError } from '../../../errors.js';
import { flatten } from '../../../render/output.js';
import { argument, verb } from '../../verb.js';

export const get = verb({
  name: 'get',
  description: 'one setting',
  args: { key: argument.required('<key>', 'e.g. profiles.sandbox.base_url, default_profile') },
  examples: ['tpa config get profiles.sandbox.base_url'],
  async run(ctx, { key }) {
    const flat = flatten(readConfig(ctx.paths));
    const value = Object.hasOwn(flat, key) ? flat[key] : undefined;
    if (value === undefined) throw new NotFoundError(`no setting ${key}`, { hint: 'see: tpa config list' });
    return { data: { key, value }, table: () => (Array.isArray(value) ? value.join(',') : String(value)) };
  },
});
