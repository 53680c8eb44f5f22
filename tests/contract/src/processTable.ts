import { readFileSync, readdirSync } from 'node:fs';

/** A process observed in the host's process table. */
export interface SeenProcess {
  pid: number;
  ppid: number;
  startTicks: number;
  comm: string;
}

function read(pid: string): SeenProcess | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    const fields = text
      .slice(close + 2)
      .trim()
      .split(/\s+/);
    if (fields[0] === 'Z' || fields[0] === 'X') return null;
    return {
      pid: Number(pid),
      ppid: Number(fields[1]),
      startTicks: Number(fields[19]),
      comm: text.slice(text.indexOf('(') + 1, close),
    };
  } catch {
    return null;
  }
}

/** True when this host has a Linux process table to observe. */
export function canObserveProcesses(): boolean {
  return read(String(process.pid)) !== null;
}

/**
 * The live descendants of this test process, keyed by `pid:startTicks` so a reused pid is a new key.
 * An observation independent of any supervisor: it sees processes a provider started by any means.
 */
export function descendants(): Map<string, SeenProcess> {
  const all: SeenProcess[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name)) continue;
    const entry = read(name);
    if (entry) all.push(entry);
  }
  const out = new Map<string, SeenProcess>();
  let frontier = new Set([process.pid]);
  while (frontier.size > 0) {
    const next = new Set<number>();
    for (const entry of all) {
      if (frontier.has(entry.ppid) && !out.has(`${entry.pid}:${entry.startTicks}`)) {
        out.set(`${entry.pid}:${entry.startTicks}`, entry);
        next.add(entry.pid);
      }
    }
    frontier = next;
  }
  return out;
}

/** Descendants in `after` that were not in `before`. */
export function newProcesses(before: Map<string, SeenProcess>, after: Map<string, SeenProcess>): SeenProcess[] {
  return [...after].filter(([key]) => !before.has(key)).map(([, entry]) => entry);
}
