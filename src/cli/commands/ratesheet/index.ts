// tpa ratesheet: the contract builder's rate schedule (docs/api-routes.md "The contract builder" endpoints): its settings,
// its items one by one or by CSV, a preview, and the finalize that makes them live contract rates.
import type { Entry } from '../../verb.js';
import { add } from './add.js';
import { catalog } from './catalog.js';
import { config } from './config.js';
import { exportCsv } from './export.js';
import { finalize } from './finalize.js';
import { importCsv } from './import.js';
import { init } from './init.js';
import { loadCatalog } from './load-catalog.js';
import { preview } from './preview.js';
import { remove } from './remove.js';
import { show } from './show.js';

export const verbs: readonly Entry[] = [catalog, init, show, config, add, remove, loadCatalog, preview, finalize, importCsv, exportCsv];
