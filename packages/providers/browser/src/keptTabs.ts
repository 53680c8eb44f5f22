/** How many tabs REA opened for `url` a session's owned browser keeps for later calls. */
export const MAX_KEPT_TABS = 8;

/**
 * The tabs an owned browser keeps for later calls, least recently used first, and those it closed to
 * stay within {@link MAX_KEPT_TABS} (the most recent 256), so a later call naming one is told why it is gone.
 */
export interface KeptTabs {
  order: string[];
  closed: string[];
}

/** No tabs kept yet. */
export function createKeptTabs(): KeptTabs {
  return { order: [], closed: [] };
}

/** Marks `targetId` as just used (kept by a call, or named by one), when it is one of the kept tabs or `add`. */
export function useTab(tabs: KeptTabs, targetId: string, add = false): void {
  const at = tabs.order.indexOf(targetId);
  if (at < 0 && !add) return;
  if (at >= 0) tabs.order.splice(at, 1);
  tabs.order.push(targetId);
}

/**
 * Forgets the kept tabs that are gone (not in `live`) and answers the least recently used ones past
 * {@link MAX_KEPT_TABS}, which the caller closes; they are remembered as closed for the limit.
 */
export function tabsPastLimit(tabs: KeptTabs, live: ReadonlySet<string>): string[] {
  tabs.order = tabs.order.filter((id) => live.has(id));
  const excess = tabs.order.splice(0, Math.max(0, tabs.order.length - MAX_KEPT_TABS));
  tabs.closed = [...tabs.closed, ...excess].slice(-256);
  return excess;
}
