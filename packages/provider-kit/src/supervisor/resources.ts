import { existsSync, lstatSync, readFileSync, readdirSync } from 'node:fs';
import { chmod, mkdtemp, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ReaError } from '@rea/evidence';
import type { OwnedResourceKind } from './ownedProcess.js';

/** A non-process owned resource and how to release it. */
export interface ReleasableResource {
  kind: Exclude<OwnedResourceKind, 'processes'>;
  id: string;
  /** Releases it; failures are reported by `present()` afterwards, not thrown. */
  release(): Promise<void>;
  /** True while the resource still exists on the host. */
  present(): boolean;
}

/** Mount points listed by the host (Linux mountinfo), or null when the host does not list them. */
function mountPoints(): string[] | null {
  try {
    const info = readFileSync('/proc/self/mountinfo', 'utf8');
    // Field 5 is the mount point, with space, tab, newline and backslash octal-escaped.
    return info
      .split('\n')
      .map((line) => line.split(' ')[4])
      .filter((field): field is string => field !== undefined)
      .map((field) => field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))));
  } catch {
    return null;
  }
}

/**
 * Mount points below `dir` found by device ids, for hosts without a mount listing (macOS): a
 * directory whose device differs from `dir`'s is a mount point. Symlinks are not followed and the
 * walk does not descend into a mount. Unreadable directories are skipped.
 */
export function mountsUnderByDevice(dir: string): string[] {
  let root: number;
  try {
    root = lstatSync(dir).dev;
  } catch {
    return [];
  }
  const found: string[] = [];
  const pending = [dir];
  for (let current = pending.pop(); current !== undefined; current = pending.pop()) {
    let names: string[];
    try {
      names = readdirSync(current);
    } catch {
      continue;
    }
    for (const name of names) {
      const path = join(current, name);
      try {
        const info = lstatSync(path);
        if (!info.isDirectory()) continue;
        if (info.dev !== root) found.push(path);
        else pending.push(path);
      } catch {
        // Vanished or unreadable: nothing to protect there.
      }
    }
  }
  return found.sort();
}

/** Mount points below `dir` (the host's mount listing, else device ids). */
export function mountsUnder(dir: string): string[] {
  const points = mountPoints();
  if (points === null) return mountsUnderByDevice(dir);
  return points.filter((point) => point.startsWith(`${dir}/`));
}

function mounted(mountPoint: string): boolean | null {
  const points = mountPoints();
  if (points !== null) return points.includes(mountPoint);
  try {
    return lstatSync(mountPoint).dev !== lstatSync(dirname(mountPoint)).dev;
  } catch {
    return null;
  }
}

const PREFIX = /^[a-z0-9][a-z0-9-]{0,31}$/;

/** Creates a fresh mode-0700 directory under the system temp directory as an owned resource. */
export async function createOwnedTempDir(prefix: string): Promise<ReleasableResource & { path: string }> {
  if (!PREFIX.test(prefix)) {
    throw new ReaError('invalid_request', `Temp directory prefix "${prefix}" is not a short kebab-case word.`, {
      details: { reason: 'invalid-prefix', prefix },
    });
  }
  const path = await mkdtemp(join(tmpdir(), `rea-${prefix}-`));
  await chmod(path, 0o700);
  return {
    kind: 'temp-directories',
    id: path,
    path,
    release: async () => {
      // Never delete recursively through a mount (it may expose data REA does not own): leave the directory.
      if (mountsUnder(path).length > 0) return;
      await rm(path, { recursive: true, force: true, maxRetries: 2 }).catch(() => undefined);
    },
    present: () => existsSync(path),
  };
}

/** A socket file (and optional closer) as an owned resource: release closes it, then unlinks the file. */
export function ownedSocket(path: string, close?: () => Promise<void> | void): ReleasableResource {
  return {
    kind: 'sockets',
    id: path,
    release: async () => {
      try {
        await close?.();
      } catch {
        // The file check below decides whether anything remains.
      }
      try {
        if (lstatSync(path).isSocket()) await unlink(path);
      } catch {
        // Already gone.
      }
    },
    present: () => {
      try {
        return lstatSync(path).isSocket();
      } catch {
        return false;
      }
    },
  };
}

/** A mount as an owned resource: release runs `unmount`; it remains while the host still lists it. */
export function ownedMount(mountPoint: string, unmount: () => Promise<void>): ReleasableResource {
  let failed = false;
  let released = false;
  return {
    kind: 'mounts',
    id: mountPoint,
    release: async () => {
      try {
        await unmount();
        released = true;
      } catch {
        failed = true;
      }
    },
    present: () => {
      const listed = mounted(mountPoint);
      if (listed !== null) return listed;
      return failed || !released;
    },
  };
}
