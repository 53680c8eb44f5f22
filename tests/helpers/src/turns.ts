/**
 * Counts turns of the event loop (a setImmediate chain) from now until `stop`: work that gives the
 * loop turns lets the count grow while it runs. Stop it in `finally`, or a failing test keeps jest alive.
 */
export function turnProbe(): { turns: () => number; stop: () => void } {
  let turns = 0;
  let running = true;
  const tick = (): void => {
    if (!running) return;
    turns += 1;
    setImmediate(tick);
  };
  setImmediate(tick);
  return { turns: () => turns, stop: () => (running = false) };
}
