import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { ReaError } from '@rea/evidence';

/**
 * Where a call writes files: the caller's existing directory, or a fresh directory REA makes. Files are
 * written under a hidden staging name and renamed into place only once complete, and everything a
 * failed call wrote (and a directory it made) is removed, so a promised file is complete or absent.
 */
export interface OutputPlace {
  readonly directory: string;
  /** A staging path in the directory for a file that becomes `name` on {@link commit}. */
  stage(name: string): Promise<string>;
  /** Renames a staged file to its final name; returns the final path. */
  commit(staged: string): Promise<string>;
  /** Removes every staged and committed file of this call, and the directory if this call made it. */
  discard(): Promise<void>;
}

/** Opens the output place: `directory` must be an existing directory; none makes `<tmp>/rea-android-<kind>-XXXXXX`. */
export async function openOutputPlace(directory: string | undefined, kind: string): Promise<OutputPlace> {
  let made = false;
  let dir: string;
  if (directory === undefined) {
    dir = await mkdtemp(join(tmpdir(), `rea-android-${kind}-`));
    made = true;
  } else {
    const info = await stat(directory).catch(() => null);
    if (!info?.isDirectory()) {
      throw new ReaError('not_found', `The output directory ${directory} does not exist or is not a directory.`, {
        remediation: 'Pass an existing directory as output_directory, or omit it for a fresh directory.',
        details: { reason: 'missing', path: directory },
      });
    }
    dir = directory;
  }
  const finals = new Map<string, string>();
  const written: string[] = [];
  return {
    directory: dir,
    async stage(name) {
      const target = join(dir, name);
      if ([...finals.values()].includes(target) || (await lstat(target).catch(() => null))) {
        throw new ReaError('invalid_request', `${target} already exists; REA does not overwrite files.`, {
          remediation: 'Choose another output_directory (or omit it), or move the existing file away.',
          details: { reason: 'output-exists', path: target },
        });
      }
      const staged = join(dir, `.rea-partial-${randomUUID()}`);
      finals.set(staged, target);
      written.push(staged);
      return staged;
    },
    async commit(staged) {
      const target = finals.get(staged)!;
      await rename(staged, target);
      written.push(target);
      return target;
    },
    async discard() {
      // A staged entry can be a directory (adb pulls one recursively); each is this call's own name.
      await Promise.all(written.map((path) => rm(path, { recursive: true, force: true })));
      if (made) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** SHA-256 (hex) and size of a file. */
export async function digestFile(path: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { sha256: hash.digest('hex'), size };
}
