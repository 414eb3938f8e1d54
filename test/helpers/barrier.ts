// Waiting for a condition rather than for a time: tests that depend on another process having done
// something look again until it has; the test's own timeout is the only bound.

/** Resolves once `check()` holds, looking again every few milliseconds. */
export async function until(check: () => boolean, everyMs = 5): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, everyMs));
}
