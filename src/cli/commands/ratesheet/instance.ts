// The argument every ratesheet verb takes: the builder instance, by the id the service knows it by.
import { argument } from '../../verb.js';

/** `<instance_id>`: its help says where the ids are to be found (the service has no list of them). */
export const instanceArgument = () =>
  argument.required('<instance_id>', 'builder instance id, e.g. BLD-1001 (the embedded engine lists its own: tpa local fixtures)');
