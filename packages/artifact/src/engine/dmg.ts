// The one module that launches hdiutil (macOS). Attaches read-only to an owned temporary mount point
// and always detaches.
import { execFile } from 'node:child_process';
import { mkdtemp, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReaError } from '@rea/evidence';

function run(args: string[], signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('hdiutil', args, { timeout: 120_000, ...(signal ? { signal } : {}) }, (error, _stdout, stderr) => {
      if (error) {
        reject(
          new ReaError('execution_failure', `hdiutil ${args[0]} failed: ${String(stderr).trim() || error.message}`, {
            details: { provider_id: 'artifact', stderr_tail: String(stderr).slice(-2000) },
          }),
        );
      } else resolve();
    });
  });
}

/** The `capability_unavailable` error for DMG on a host without hdiutil. */
export function dmgUnavailable(platform: NodeJS.Platform): ReaError {
  return new ReaError(
    'capability_unavailable',
    `DMG images can only be inventoried on macOS (this host is ${platform}).`,
    {
      details: { capability: 'dmg', platform, alternatives: [] },
      remediation:
        'Run inspect_artifact on a macOS host (it uses hdiutil), or convert the image to a directory there first.',
    },
  );
}

/** Attaches `image` read-only at a fresh mount point, runs `fn` on it, and always detaches. */
export async function withMountedDmg<T>(
  image: string,
  signal: AbortSignal | undefined,
  fn: (mount: string) => Promise<T>,
): Promise<T> {
  const mount = await mkdtemp(join(tmpdir(), 'rea-dmg-'));
  let attached = false;
  try {
    await run(['attach', '-readonly', '-nobrowse', '-noautoopen', '-mountpoint', mount, image], signal);
    attached = true;
    return await fn(mount);
  } finally {
    let detached = !attached;
    if (attached)
      detached = await run(['detach', mount, '-force'], undefined).then(
        () => true,
        () => false,
      );
    await rmdir(mount).catch(() => undefined);
    if (!detached) {
      // eslint-disable-next-line no-unsafe-finally
      throw new ReaError('cleanup_incomplete', `The DMG mounted at ${mount} could not be detached.`, {
        details: { remaining: [{ kind: 'mount', id: mount }] },
      });
    }
  }
}
