import { readFileSync, readdirSync } from 'node:fs';

/** One process as read from the Linux process table (`/proc/<pid>/stat`). */
export interface ProcEntry {
  pid: number;
  ppid: number;
  pgid: number;
  /** Start time in clock ticks since boot: with `pid`, the identity that survives pid reuse checks. */
  startTicks: number;
  /** Kernel state letter (R, S, D, Z, T, …). */
  state: string;
  /** The executable name the kernel reports (at most 15 characters). */
  comm: string;
}

const PROC = '/proc';

/** True when this host exposes a Linux-style process table. */
export function procAvailable(): boolean {
  try {
    readFileSync(`${PROC}/self/stat`, 'utf8');
    return true;
  } catch {
    return false;
  }
}

/** Parses the text of `/proc/<pid>/stat`; null when it is not in the expected shape. */
export function parseStat(text: string): ProcEntry | null {
  // The command name is parenthesised and may itself contain spaces and parentheses: split at the last ")".
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  const rest = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  // Field 3 (state) is rest[0]; ppid is field 4, pgrp field 5, starttime field 22.
  const state = rest[0];
  const ppid = Number(rest[1]);
  const pgid = Number(rest[2]);
  const startTicks = Number(rest[19]);
  if (!state || ![pid, ppid, pgid, startTicks].every(Number.isSafeInteger)) return null;
  return { pid, ppid, pgid, startTicks, state, comm: text.slice(open + 1, close) };
}

/** Reads one process; null when it does not exist (or vanished while being read). */
export function readProc(pid: number): ProcEntry | null {
  try {
    return parseStat(readFileSync(`${PROC}/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * Whether the environment of process `pid` holds the variable `entry` ("NAME=value") exactly; false when
 * it cannot be read (another user's process, a zombie, gone).
 */
export function environHolds(pid: number, entry: string): boolean {
  let bytes: Buffer;
  try {
    bytes = readFileSync(`${PROC}/${pid}/environ`);
  } catch {
    return false;
  }
  // NUL-separated entries: the first has no NUL before it.
  const needle = Buffer.from(`${entry}\0`);
  return bytes.subarray(0, needle.length).equals(needle) || bytes.indexOf(Buffer.from(`\0${entry}\0`)) >= 0;
}

/** Reads every process visible to this host, keyed by pid. Processes that vanish mid-read are skipped. */
export function readProcTable(): Map<number, ProcEntry> {
  const table = new Map<number, ProcEntry>();
  let names: string[];
  try {
    names = readdirSync(PROC);
  } catch {
    return table;
  }
  for (const name of names) {
    if (!/^[0-9]+$/.test(name)) continue;
    const entry = readProc(Number(name));
    if (entry) table.set(entry.pid, entry);
  }
  return table;
}

/**
 * Descendants of `root` in `table` (zombies included), following parent links. A child whose start time
 * precedes its parent's cannot be its child (the parent pid was reused) and is not followed.
 */
export function descendantsOf(table: ReadonlyMap<number, ProcEntry>, root: number): ProcEntry[] {
  const children = new Map<number, ProcEntry[]>();
  for (const entry of table.values()) {
    const list = children.get(entry.ppid) ?? [];
    list.push(entry);
    children.set(entry.ppid, list);
  }
  const out: ProcEntry[] = [];
  const queue = [root];
  const seen = new Set<number>([root]);
  while (queue.length > 0) {
    const pid = queue.shift()!;
    const parent = table.get(pid);
    for (const child of children.get(pid) ?? []) {
      if (seen.has(child.pid)) continue;
      if (parent && child.startTicks < parent.startTicks) continue;
      seen.add(child.pid);
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}
