import { mkdir, rename, rmdir } from 'node:fs/promises';

/**
 * Gives a finished extraction (`root`, a fresh directory beside `destination`) the name
 * `destination` when nothing holds that name yet, and returns where the extraction is. Nothing is
 * ever replaced or removed: when the name is taken (an earlier extraction, another call publishing
 * at the same moment, anything else), the fresh directory keeps its own name.
 */
export async function publish(root: string, destination: string): Promise<string> {
  // The name is claimed exclusively first (an empty directory only this user may write to), so a
  // rename can only ever replace that empty claim, never an earlier output.
  const claimed = await mkdir(destination, { mode: 0o700 }).then(
    () => true,
    () => false,
  );
  if (!claimed) return root;
  try {
    await rename(root, destination);
    return destination;
  } catch {
    await rmdir(destination).catch(() => undefined);
    return root;
  }
}
