/**
 * Milliseconds on a monotonic clock, from an arbitrary origin: for measuring how long a slice of work
 * has run. It reads the clock `process.uptime()` reads (libuv's monotonic high-resolution time), as
 * `performance.now()` does, but without loading `node:perf_hooks`: Node.js loads that and a dozen
 * modules with it (about 2 ms) on the first use of the global `performance`, which every command that
 * paces its work would otherwise pay.
 */
export function monotonicMs(): number {
  return process.uptime() * 1000;
}
