// tpa local: the embedded engine's own housekeeping: fixtures, the database, the clock, the server,
// its keys and clients, sandbox scenarios and the audit chain.
import type { Entry } from '../../verb.js';
import { audit } from './audit/index.js';
import { backup } from './backup.js';
import { clients } from './clients/index.js';
import { clock } from './clock/index.js';
import { encrypt } from './encrypt.js';
import { fixtures } from './fixtures.js';
import { init } from './init.js';
import { keys } from './keys/index.js';
import { reset } from './reset.js';
import { restore } from './restore.js';
import { serve } from './serve.js';
import { simulate } from './simulate.js';

export const verbs: readonly Entry[] = [fixtures, init, encrypt, reset, backup, restore, clock, serve, keys, clients, simulate, audit];
