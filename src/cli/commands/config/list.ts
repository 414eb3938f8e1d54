// tpa config list: every setting of config.json, one key=value a line.
import { configFile, readConfig } from '../../../auth/config.js';
import { flatten } from '../../../render/output.js';
import { verb } from '../../verb.js';

/** A setting's fields: `--json` selects from them, and they are the CSV header, written even when there is none. */
const SETTING_FIELDS = ['key', 'value'];

export const list = verb({
  name: 'list',
  description: 'every setting, one key=value a line',
  fields: SETTING_FIELDS,
  examples: ['tpa config list'],
  async run(ctx) {
    const flat = flatten(readConfig(ctx.paths));
    const entries = Object.entries(flat).filter(([k]) => k !== 'value');
    return {
      data: Object.fromEntries(entries),
      items: entries.map(([key, value]) => ({ key, value })),
      columns: SETTING_FIELDS,
      table: () =>
        entries.length === 0
          ? `no settings yet (${configFile(ctx.paths)})`
          : entries.map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`).join('\n'),
    };
  },
});
