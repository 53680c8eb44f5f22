import { lstat, rename, rm } from 'node:fs/promises';

/**
 * Moves a finished extraction (`root`, a fresh directory beside `destination`) to `destination`,
 * replacing an earlier extraction there, and returns where it is. Only a directory owned by this
 * user is replaced; anything else at `destination` (a symlink, a file, another user's directory) is
 * left alone and the fresh directory is kept where it is, as is the case when another call published
 * at the same moment.
 */
export async function publish(root: string, destination: string): Promise<string> {
  const existing = await lstat(destination).catch(() => null);
  if (existing !== null) {
    const ours = existing.isDirectory() && (process.getuid === undefined || existing.uid === process.getuid());
    if (!ours) return root;
    await rm(destination, { recursive: true, force: true });
  }
  try {
    await rename(root, destination);
    return destination;
  } catch {
    return root;
  }
}
