import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, mkdir, open, readFile, realpath, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ReaError } from '@rea/evidence';
import type { ClientDefinition } from './clients.js';
import { verifyConfigText } from './verify.js';

/** One file write of `rea setup`. */
export interface ConfigWrite {
  client: ClientDefinition;
  file: string;
  /** The text the plan was made from (null: the file did not exist). */
  before: string | null;
  beforeDocument: Record<string, unknown> | null;
  after: string;
  entry: Record<string, unknown>;
}

async function currentText(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** A backup path beside `file` that does not exist yet. */
function backupPath(file: string, now: Date): string {
  return `${file}.rea-backup-${now.toISOString().replace(/[:.]/g, '-')}`;
}

/**
 * Writes one planned configuration change safely: refuses when the file changed since the plan,
 * copies the original to a backup first, writes a temporary file beside it (same mode), flushes it,
 * renames it over the original (the target of a symlink, so the link survives), then reads it back and checks that REA's entry is exactly the planned
 * one and nothing else changed. On a failed check the backup is restored. Returns the backup path.
 */
export async function applyConfigWrite(write: ConfigWrite, now = new Date()): Promise<string | null> {
  // A symlinked configuration (dotfile managers) is updated where it lives; the link stays a link.
  const file = await realpath(write.file).catch(() => write.file);
  const present = await currentText(file);
  if (present !== write.before) {
    throw new ReaError('execution_failure', `${file} changed while setup was running; it was not modified.`, {
      details: { path: file, reason: 'changed-during-setup' },
      remediation: 'Run `rea setup` again to plan against the current file.',
    });
  }
  await mkdir(dirname(file), { recursive: true });
  let backup: string | null = null;
  let mode = 0o600;
  if (present !== null) {
    backup = backupPath(file, now);
    await copyFile(file, backup, constants.COPYFILE_EXCL);
    mode = (await stat(file)).mode & 0o777;
  }
  const temp = `${file}.rea-${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(write.after, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  const readBack = await readFile(file, 'utf8');
  if (readBack !== write.after || !verifyConfigText(write.client, write.beforeDocument, readBack, write.entry)) {
    if (backup !== null) await copyFile(backup, file);
    else await rm(file, { force: true });
    throw new ReaError('execution_failure', `${file} did not read back as written; the original was restored.`, {
      details: { path: file, reason: 'verification-failed' },
    });
  }
  return backup;
}
