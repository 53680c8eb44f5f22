// The command line keeps V8's compiled code of its bundle (dist/cli.cjs) between runs, in a private
// per-user cache directory: written once per build, Node.js version, architecture and set of Node.js
// options, extended when a new command has compiled more of the bundle, replaced atomically, checked
// before V8 sees it, and never a reason for a command to fail or to answer differently.
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'bin.js');
const work = mkdtempSync(join(tmpdir(), 'rea-code-cache-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// A small file every run inspects: its Evidence is the same whatever compiled the command line.
const subject = join(work, 'subject.txt');
writeFileSync(subject, 'a file to inspect\n');
const INSPECT = ['inspect-artifact', subject, '--format', 'json', '--quiet'];
const CACHE_NAME = new RegExp(
  `^cli-[0-9a-f]{16}-[0-9a-f]{8}-node${process.versions.node.replace(/\./g, '\\.')}-${process.arch}\\.v8cache$`,
);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function rea(args: readonly string[], env: Record<string, string>): Promise<Run> {
  const child = spawn(process.execPath, [bin, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, REA_CODE_CACHE: 'on', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The cache file's header (as the format defines it: magic line, 4-byte length, JSON) and payload. */
function readCache(file: string): { sha256: string; commands: string[]; payload: Buffer } {
  const bytes = readFileSync(file);
  const magic = 'rea-code-cache 1\n';
  expect(bytes.subarray(0, magic.length).toString()).toBe(magic);
  const length = bytes.readUInt32LE(magic.length);
  const header = JSON.parse(bytes.subarray(magic.length + 4, magic.length + 4 + length).toString()) as {
    sha256: string;
    commands: string[];
  };
  return { ...header, payload: bytes.subarray(magic.length + 4 + length) };
}

function cacheFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

let reference: string;
async function referenceOutput(): Promise<string> {
  if (reference === undefined) {
    const run = await rea(INSPECT, { REA_CODE_CACHE: 'off', REA_CODE_CACHE_DIR: join(work, 'never') });
    expect(run.code).toBe(0);
    reference = run.stdout;
    expect(existsSync(join(work, 'never'))).toBe(false);
  }
  return reference;
}

describe('issue 22: the command line code cache', () => {
  it('should write one private cache, reuse it unchanged, and extend it for a new command', async () => {
    const dir = join(work, 'fresh', 'nested');
    const first = await rea(INSPECT, { REA_CODE_CACHE_DIR: dir });
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(await referenceOutput());
    expect(first.stderr).toBe('');
    const [name, ...others] = cacheFiles(dir);
    expect(others).toEqual([]);
    expect(name).toMatch(CACHE_NAME);
    const file = join(dir, name!);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const written = readCache(file);
    expect(written.commands).toEqual(['inspect-artifact']);
    expect(createHash('sha256').update(written.payload).digest('hex')).toBe(written.sha256);
    expect(written.payload.length).toBeGreaterThan(100_000);

    // The same command again: V8 took the cache (a rejected one is replaced), and it had nothing to add.
    const before = statSync(file);
    const second = await rea(INSPECT, { REA_CODE_CACHE_DIR: dir });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(await referenceOutput());
    const after = statSync(file);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);

    // Another command compiles other parts of the bundle: the cache is replaced with one holding both.
    const doctor = await rea(['doctor', '--json'], { REA_CODE_CACHE_DIR: dir });
    expect(doctor.code).toBe(0);
    expect(cacheFiles(dir)).toEqual([name]);
    const extended = readCache(file);
    expect(statSync(file).ino).not.toBe(before.ino);
    expect(extended.commands).toEqual(['inspect-artifact', 'doctor']);
    expect(extended.payload.length).toBeGreaterThan(written.payload.length);
  }, 120_000);

  it('should keep a cache per set of Node.js options', async () => {
    const dir = join(work, 'options');
    expect((await rea(INSPECT, { REA_CODE_CACHE_DIR: dir })).code).toBe(0);
    const withOption = await rea(INSPECT, { REA_CODE_CACHE_DIR: dir, NODE_OPTIONS: '--max-old-space-size=3000' });
    expect(withOption.code).toBe(0);
    expect(withOption.stdout).toBe(await referenceOutput());
    const names = cacheFiles(dir);
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(CACHE_NAME);
    // The same build: only the options part of the names differs.
    expect(new Set(names.map((name) => name.slice(0, 21))).size).toBe(1);
  }, 120_000);

  it.each([
    ['a flipped byte in the payload', (bytes: Buffer) => ((bytes[bytes.length - 100]! ^= 0xff), bytes)],
    ['half of the file', (bytes: Buffer) => bytes.subarray(0, bytes.length >> 1)],
    ['an empty file', () => Buffer.alloc(0)],
    [
      'a payload V8 rejects, with a matching checksum',
      () => {
        const payload = Buffer.alloc(200_000, 7);
        const header = Buffer.from(
          JSON.stringify({
            sha256: createHash('sha256').update(payload).digest('hex'),
            commands: ['inspect-artifact'],
          }),
        );
        const length = Buffer.alloc(4);
        length.writeUInt32LE(header.length);
        return Buffer.concat([Buffer.from('rea-code-cache 1\n'), length, header, payload]);
      },
    ],
  ])(
    'should answer the same and replace a cache with %s',
    async (_, damage) => {
      const dir = mkdtempSync(join(work, 'damaged-'));
      chmodSync(dir, 0o700);
      expect((await rea(INSPECT, { REA_CODE_CACHE_DIR: dir })).code).toBe(0);
      const [name] = cacheFiles(dir);
      const file = join(dir, name!);
      const damaged = Buffer.from(damage(readFileSync(file)));
      writeFileSync(file, damaged);
      const run = await rea(INSPECT, { REA_CODE_CACHE_DIR: dir });
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(await referenceOutput());
      expect(run.stderr).toBe('');
      expect(cacheFiles(dir)).toEqual([name]);
      expect(readFileSync(file).equals(damaged)).toBe(false);
      const replaced = readCache(file);
      expect(createHash('sha256').update(replaced.payload).digest('hex')).toBe(replaced.sha256);
      expect(replaced.commands).toEqual(['inspect-artifact']);
      expect(replaced.payload.length).toBeGreaterThan(100_000);
    },
    120_000,
  );

  it("should remove other builds' caches for this Node.js and abandoned writes, and keep other versions'", async () => {
    const dir = mkdtempSync(join(work, 'stale-'));
    chmodSync(dir, 0o700);
    const suffix = `-node${process.versions.node}-${process.arch}.v8cache`;
    const otherBuild = `cli-0000000000000000-00000000${suffix}`;
    const otherNode = `cli-0000000000000000-00000000-node0.0.0-${process.arch}.v8cache`;
    const unrelated = 'notes.txt';
    // What a run killed while writing leaves: removed once an hour old, not while another run may write it.
    const abandoned = `cli-0000000000000000-00000000${suffix}.1-00000000.tmp`;
    const writing = `cli-0000000000000000-00000000${suffix}.2-00000000.tmp`;
    for (const name of [otherBuild, otherNode, unrelated, abandoned, writing]) writeFileSync(join(dir, name), 'x');
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(join(dir, abandoned), twoHoursAgo, twoHoursAgo);
    expect((await rea(INSPECT, { REA_CODE_CACHE_DIR: dir })).code).toBe(0);
    const names = cacheFiles(dir);
    expect(names).not.toContain(otherBuild);
    expect(names).not.toContain(abandoned);
    expect(names).toEqual(expect.arrayContaining([otherNode, unrelated, writing]));
    expect(names.filter((name) => CACHE_NAME.test(name))).toHaveLength(1);
  }, 120_000);

  it('should write nothing when off, or where the directory is not private', async () => {
    const off = join(work, 'off');
    const run = await rea(INSPECT, { REA_CODE_CACHE: 'off', REA_CODE_CACHE_DIR: off });
    expect(run.stdout).toBe(await referenceOutput());
    expect(existsSync(off)).toBe(false);

    const shared = join(work, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const inShared = await rea(INSPECT, { REA_CODE_CACHE_DIR: shared });
    expect(inShared.code).toBe(0);
    expect(inShared.stdout).toBe(await referenceOutput());
    expect(cacheFiles(shared)).toEqual([]);

    const notDirectory = join(work, 'a-file');
    writeFileSync(notDirectory, 'x');
    const onFile = await rea(INSPECT, { REA_CODE_CACHE_DIR: notDirectory });
    expect(onFile.code).toBe(0);
    expect(onFile.stdout).toBe(await referenceOutput());
    expect(onFile.stderr).toBe('');
    expect(readFileSync(notDirectory, 'utf8')).toBe('x');
  }, 120_000);

  it('should leave the cache off for an invalid REA_CODE_CACHE, which doctor names', async () => {
    const dir = join(work, 'invalid');
    const doctor = await rea(['doctor'], { REA_CODE_CACHE: 'maybe', REA_CODE_CACHE_DIR: dir });
    expect(doctor.stdout).toContain('REA_CODE_CACHE="maybe" is not "on" or "off"');
    expect(existsSync(dir)).toBe(false);
  }, 60_000);

  it('should end concurrent first runs with one complete cache and no temporary file', async () => {
    const dir = join(work, 'concurrent');
    const runs = await Promise.all(Array.from({ length: 4 }, () => rea(INSPECT, { REA_CODE_CACHE_DIR: dir })));
    for (const run of runs) {
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(await referenceOutput());
    }
    const names = cacheFiles(dir);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(CACHE_NAME);
    const cache = readCache(join(dir, names[0]!));
    expect(createHash('sha256').update(cache.payload).digest('hex')).toBe(cache.sha256);
  }, 120_000);
});
