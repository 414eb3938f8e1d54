// tpa local audit verify | head | list: the engine's audit chain.
import type { Group } from '../../../verb.js';
import { head } from './head.js';
import { list } from './list.js';
import { verify } from './verify.js';

export const audit: Group = {
  name: 'audit',
  description: "the engine's audit chain: every money-moving or irreversible action, each record hashed with the one before (SHA-256)",
  verbs: [verify, head, list],
};
