import { rmSync } from 'node:fs';
import { loadEngine, openEngine, submitClaims } from './lib/ledger.mjs';
const dir = `/tmp/xb2-${process.pid}`; rmSync(dir, { recursive: true, force: true });
const { Engine, claimTemplate } = await loadEngine(); const e = openEngine(Engine, dir, 10000);
const t = process.hrtime.bigint(); submitClaims(e, claimTemplate, 0, 6000); e.close();
rmSync(dir, { recursive: true, force: true });
