// tpa local clients register | list | revoke: OAuth clients of the mutual-TLS server.
import type { Group } from '../../../verb.js';
import { list } from './list.js';
import { register } from './register.js';
import { revoke } from './revoke.js';

export const clients: Group = {
  name: 'clients',
  description: 'OAuth clients of the mutual-TLS server (`tpa local serve --client-ca`): their scopes, and revoking them',
  verbs: [register, list, revoke],
};
