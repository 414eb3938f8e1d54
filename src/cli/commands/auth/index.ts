// tpa auth login | status | logout | keys | rotate: credentials for the service (docs/config.md "Credentials and config").
import type { Entry } from '../../verb.js';
import { keys } from './keys.js';
import { login } from './login.js';
import { logout } from './logout.js';
import { rotate } from './rotate.js';
import { status } from './status.js';

export const verbs: readonly Entry[] = [login, status, logout, keys, rotate];
