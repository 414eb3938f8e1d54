// tpa local clients register | list: OAuth clients of the mutual-TLS server.
import type { Group } from '../../../verb.js';
import { list } from './list.js';
import { register } from './register.js';

export const clients: Group = {
  name: 'clients',
  description: 'OAuth clients of the mutual-TLS server (`tpa local serve --client-ca`) and their scopes',
  verbs: [register, list],
};
