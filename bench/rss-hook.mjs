// Preloaded into a benchmarked child (node --import): writes the child's own peak RSS (kB, from
// its resource usage) to TPA_BENCH_RSS_FILE when it exits.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  if (process.env.TPA_BENCH_RSS_FILE) writeFileSync(process.env.TPA_BENCH_RSS_FILE, String(process.resourceUsage().maxRSS));
});
