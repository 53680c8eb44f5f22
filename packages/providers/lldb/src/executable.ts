import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { access, open, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { ReaError, fileSystemError } from '@rea/evidence';

/** An executable checked before it is run: what kind it is and the subject of the Evidence about it. */
export interface CheckedExecutable {
  path: string;
  kind: 'elf' | 'mach-o' | 'script';
  subject: { format: string; sha256: string; size: number };
}

const ELF = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);
const MACHO = [0xfeedfacf, 0xcffaedfe, 0xfeedface, 0xcefaedfe, 0xcafebabe];

function refuse(reason: string, message: string, remediation: string, path: string): never {
  throw new ReaError('invalid_request', message, { remediation, details: { reason, path } });
}

/**
 * Checks that `path` names a file REA can run as it is: absolute, present, a regular file, executable,
 * and either a native executable (ELF, Mach-O) or a script whose `#!` line names an interpreter that
 * exists. Never runs it. `not_found` for a missing path; `invalid_request` (`details.reason`) otherwise.
 */
export async function checkExecutable(path: string): Promise<CheckedExecutable> {
  if (!isAbsolute(path)) {
    refuse('relative-path', `The executable path "${path}" is not absolute.`, 'Pass an absolute path.', path);
  }
  const info = await stat(path).catch(() => null);
  if (info === null) {
    throw new ReaError('not_found', `No file exists at ${path}.`, {
      remediation: 'Check the path of the executable.',
      details: { reason: 'missing', path },
    });
  }
  if (info.isDirectory()) {
    refuse('directory', `${path} is a directory, not an executable.`, 'Name the executable file inside it.', path);
  }
  if (!info.isFile()) refuse('not-a-file', `${path} is not a regular file.`, 'Name an executable file.', path);
  const executable = await access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
  if (!executable) {
    refuse(
      'not-executable',
      `${path} is not executable.`,
      `Make it executable (chmod +x ${path}) or name another file.`,
      path,
    );
  }
  const handle = await open(path, 'r');
  const hash = createHash('sha256');
  let head = Buffer.alloc(0);
  try {
    for await (const chunk of handle.createReadStream({ autoClose: false })) {
      const bytes = chunk as Buffer;
      if (head.length < 256) head = Buffer.concat([head, bytes.subarray(0, 256 - head.length)]);
      hash.update(bytes);
    }
  } finally {
    await handle.close();
  }
  const subject = (format: string) => ({ format, sha256: hash.digest('hex'), size: info.size });
  if (head.subarray(0, 4).equals(ELF)) return { path, kind: 'elf', subject: subject('elf') };
  if (head.length >= 4 && MACHO.includes(head.readUInt32BE(0)))
    return { path, kind: 'mach-o', subject: subject('macho') };
  if (head.subarray(0, 2).toString('latin1') === '#!') {
    const line = head.subarray(2).toString('utf8').split('\n')[0]!.trim();
    const interpreter = line.split(/\s+/)[0] ?? '';
    const present =
      interpreter !== '' &&
      (await access(interpreter, constants.X_OK).then(
        () => true,
        () => false,
      ));
    if (!present) {
      refuse(
        'interpreter-missing',
        `The script ${path} names the interpreter "${interpreter}", which is not an executable file.`,
        'Install the interpreter or fix the #! line of the script.',
        path,
      );
    }
    return { path, kind: 'script', subject: subject('script') };
  }
  return refuse(
    'no-interpreter',
    `${path} is neither a native executable nor a script with a #! interpreter line.`,
    'Add a #! line naming its interpreter, or pass the interpreter as the executable and the file as an argument.',
    path,
  );
}

/**
 * Checks the working directory a program is to run in: absolute (`invalid_request`, reason
 * `relative-path`), present (`not_found`) and a directory (`invalid_request`, reason `not-a-directory`).
 */
export async function checkWorkingDirectory(path: string | undefined): Promise<void> {
  if (path === undefined) return;
  if (!isAbsolute(path)) {
    throw new ReaError('invalid_request', `The working directory "${path}" is not absolute.`, {
      remediation: 'Pass an absolute path as cwd.',
      details: { reason: 'relative-path', path },
    });
  }
  const info = await stat(path).catch((error: unknown) => {
    const mapped = fileSystemError(error, path, 'read');
    if (mapped.code !== 'not_found') throw mapped;
    throw new ReaError('not_found', `The working directory ${path} does not exist.`, {
      remediation: 'Pass an existing directory as cwd.',
      details: { ...mapped.details, path },
    });
  });
  if (!info.isDirectory()) {
    throw new ReaError('invalid_request', `The working directory ${path} is not a directory.`, {
      remediation: 'Pass a directory as cwd.',
      details: { reason: 'not-a-directory', path },
    });
  }
}
