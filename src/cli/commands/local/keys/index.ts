// tpa local keys create | list | revoke: API keys of `tpa local serve`.
import type { Group } from '../../../verb.js';
import { create } from './create.js';
import { list } from './list.js';
import { revoke } from './revoke.js';

export const keys: Group = { name: 'keys', description: 'API keys of `tpa local serve`', verbs: [create, list, revoke] };
