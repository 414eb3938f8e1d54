import { existsSync } from 'node:fs';
import { loadEngine, openEngine, submitClaims } from './lib/ledger.mjs';
const dir = process.argv[2], N = Number(process.argv[3]);
const { Engine, claimTemplate } = await loadEngine(); const e = openEngine(Engine, dir, N);
const el = submitClaims(e, claimTemplate, 0, N); e.close();
console.log('claims/s', (N / el[N - 1]).toFixed(0), 'first10k', (10000 / el[9999]).toFixed(0), 'last10k', (10000 / (el[N - 1] - el[N - 10001])).toFixed(0));
