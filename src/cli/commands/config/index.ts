// tpa config list | get | set: profiles and settings in config.json (mode 0600, written atomically).
import type { Entry } from '../../verb.js';
import { get } from './get.js';
import { list } from './list.js';
import { set } from './set.js';

export const verbs: readonly Entry[] = [list, get, set];
