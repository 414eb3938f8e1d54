// tpa jobs: the journals of long jobs on this machine (claim batches, single claims, payment runs),
// read only (docs/jobs.md "Reading a journal: tpa jobs"); `close` closes an interrupted payment run.
import type { Entry } from '../../verb.js';
import { close } from './close.js';
import { list } from './list.js';
import { show } from './show.js';

export const verbs: readonly Entry[] = [list, show, close];
