// Preloaded into a benchmarked child (node --import): writes the child's own peak RSS (kB, from
// its resource usage), then its user and system CPU time (µs), to TPA_BENCH_RSS_FILE when it exits.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  if (!process.env.TPA_BENCH_RSS_FILE) return;
  const usage = process.resourceUsage();
  writeFileSync(process.env.TPA_BENCH_RSS_FILE, `${usage.maxRSS} ${usage.userCPUTime} ${usage.systemCPUTime}`);
});
