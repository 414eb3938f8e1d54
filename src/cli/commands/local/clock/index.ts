// tpa local clock show | advance | set | real: the engine clock, shared by every command on this data dir.
import type { Group } from '../../../verb.js';
import { advance } from './advance.js';
import { real } from './real.js';
import { set } from './set.js';
import { show } from './show.js';

export const clock: Group = {
  name: 'clock',
  description: 'the engine clock, shared by every command on this data dir (TPA_CLOCK overrides it)',
  verbs: [show, advance, set, real],
};
