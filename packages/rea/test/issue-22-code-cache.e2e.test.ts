// The command line keeps V8's compiled code of its bundle (dist/cli.cjs) between runs, in a private
// per-user cache directory: written once per build, command, Node.js version, architecture and set of
// Node.js options (a command's cache holds the functions it ran, not every command's), replaced atomically, checked
// before V8 sees it, and never a reason for a command to fail or to answer differently. Code read from
// the cache runs: a forged cache (made here, for a small stamped bundle) shows which files are trusted.
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
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { chownSync, linkSync, symlinkSync } from 'node:fs';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'bin.cjs');
const loader = pathToFileURL(join(here, '..', 'dist', 'commandLine.js')).href;
const { stampCommandLine } = (await import(
  pathToFileURL(resolve(here, '..', 'scripts', 'bundleOptions.mjs')).href
)) as {
  stampCommandLine: (code: string) => string;
};
const work = mkdtempSync(join(tmpdir(), 'rea-code-cache-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// A small file every run inspects: its Evidence is the same whatever compiled the command line.
const subject = join(work, 'subject.txt');
writeFileSync(subject, 'a file to inspect\n');
const INSPECT = ['inspect-artifact', subject, '--format', 'json', '--quiet'];
const CACHE_NAME = new RegExp(
  `^cli-[0-9a-f]{16}-[0-9a-f]{8}-(?:_|[a-z][a-z0-9-]*)-node${process.versions.node.replace(/\./g, '\\.')}-${process.arch}\\.v8cache$`,
);
/** The command part of a cache file's name. */
const commandOf = (name: string) => /^cli-[0-9a-f]{16}-[0-9a-f]{8}-(.+)-node[0-9]/.exec(name)?.[1];

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
  it('should write one private cache per command, and reuse it unchanged', async () => {
    const dir = join(work, 'fresh', 'nested');
    const first = await rea(INSPECT, { REA_CODE_CACHE_DIR: dir });
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(await referenceOutput());
    expect(first.stderr).toBe('');
    const [name, ...others] = cacheFiles(dir);
    expect(others).toEqual([]);
    expect(name).toMatch(CACHE_NAME);
    expect(commandOf(name!)).toBe('inspect-artifact');
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

    // Another command writes a cache of its own and leaves the first as it was; so does an invocation
    // that names no command.
    const doctor = await rea(['doctor', '--json'], { REA_CODE_CACHE_DIR: dir });
    expect(doctor.code).toBe(0);
    const llms = await rea(['--llms'], { REA_CODE_CACHE_DIR: dir });
    expect(llms.code).toBe(0);
    const names = cacheFiles(dir);
    expect(names).toHaveLength(5);
    for (const other of names) expect(other).toMatch(CACHE_NAME);
    // Each script keeps caches of its own, named by its stamp: dist/cli.cjs one per command, and
    // dist/cli-extra.cjs one per command that loaded it (`doctor` probes every provider, `--llms` lists
    // the MCP server's tools; `inspect-artifact` loads neither).
    const scripts = new Map<string, string[]>();
    for (const other of names) {
      const stamp = other.slice(0, 'cli-'.length + 16);
      scripts.set(stamp, [...(scripts.get(stamp) ?? []), commandOf(other)!]);
    }
    expect([...scripts.values()].map((commands) => commands.sort()).sort((a, b) => b.length - a.length)).toEqual([
      ['_', 'doctor', 'inspect-artifact'],
      ['_', 'doctor'],
    ]);
    // The same build and options: a script's names differ in their command part only.
    expect(new Set(names.map((other) => other.replace(`-${commandOf(other)!}-`, '-'))).size).toBe(2);
    const untouched = statSync(file);
    expect([untouched.ino, untouched.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    for (const other of names.filter((n) => commandOf(n) === 'doctor')) {
      const own = readCache(join(dir, other));
      expect(own.commands).toEqual(['doctor']);
      expect(createHash('sha256').update(own.payload).digest('hex')).toBe(own.sha256);
    }
    // Running `doctor` again rewrites no cache (a rewrite renames a new file into place: a new inode).
    const identities = () => cacheFiles(dir).map((other) => [other, statSync(join(dir, other)).ino]);
    const beforeAgain = identities();
    expect((await rea(['doctor', '--json'], { REA_CODE_CACHE_DIR: dir })).code).toBe(0);
    expect(identities()).toEqual(beforeAgain);
    // Help and a schema run none of a command's own code: they write no cache, even for a word that
    // names no command.
    for (const args of [
      ['analyze', '--help'],
      ['not-a-command', '--help'],
      ['inspect-artifact', '--schema'],
    ]) {
      expect((await rea(args, { REA_CODE_CACHE_DIR: dir })).code).toBe(0);
    }
    expect(identities()).toEqual(beforeAgain);
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

  it("should keep other builds' caches, and remove unused ones, extra ones and abandoned writes", async () => {
    const dir = mkdtempSync(join(work, 'prune-'));
    const suffix = `-node${process.versions.node}-${process.arch}.v8cache`;
    const at = (name: string, daysAgo: number) => {
      writeFileSync(join(dir, name), 'x');
      const when = new Date(Date.now() - daysAgo * 86_400_000);
      utimesSync(join(dir, name), when, when);
      return name;
    };
    // Another installation used yesterday: kept (two installations used in turn keep a cache each).
    const otherBuild = at(`cli-1111111111111111-00000000-inspect-artifact${suffix}`, 1);
    // Unused for 40 days: removed, whatever its Node.js version.
    const unused = at('cli-2222222222222222-00000000-analyze-node0.0.0-x64.v8cache', 40);
    // A cache shared by every command (named without one, as REA's caches once were), unused for 40 days:
    // removed too, and so is such a cache's abandoned write.
    const shared = at(`cli-5555555555555555-00000000${suffix}`, 40);
    const sharedWrite = at(`cli-5555555555555555-00000000${suffix}.3-00000000.tmp`, 2);
    // Thirty-three more used over the last weeks (other commands, one naming none): with the new cache,
    // only the 32 most recently used remain.
    const recent = Array.from({ length: 33 }, (_, i) =>
      at(`cli-3333333333333333-00000000-${i === 0 ? '_' : `command-${i}`}${suffix}`, 2 + i / 2),
    );
    // What a run killed while writing leaves: removed once an hour old, not while another run may write it.
    const abandoned = at(`cli-4444444444444444-00000000-doctor${suffix}.1-00000000.tmp`, 1 / 12);
    const writing = at(`cli-4444444444444444-00000000-doctor${suffix}.2-00000000.tmp`, 0);
    const unrelated = at('notes.txt', 400);
    expect((await rea(INSPECT, { REA_CODE_CACHE_DIR: dir })).code).toBe(0);
    const names = cacheFiles(dir);
    // The one this run wrote: any cache name not planted here (its build's stamp may start with any digit).
    const planted = new Set([otherBuild, unused, shared, ...recent]);
    const current = names.filter((name) => CACHE_NAME.test(name) && !planted.has(name));
    expect(current).toHaveLength(1);
    expect(names).not.toContain(unused);
    expect(names).not.toContain(shared);
    expect(names).not.toContain(sharedWrite);
    expect(names).not.toContain(abandoned);
    expect(names).toEqual(expect.arrayContaining([otherBuild, writing, unrelated]));
    // The current cache, the other installation's and the 30 most recent of the thirty-three.
    expect(names.filter((name) => name.endsWith('.v8cache')).sort()).toEqual(
      [current[0]!, otherBuild, ...recent.slice(0, 30)].sort(),
    );
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

  // Only root can run with a home that is not its own: run as root (as CI does), this case checks it.
  (process.getuid?.() === 0 ? it : it.skip)(
    "should create nothing in a home that is not the user's own (root keeping a user's HOME)",
    async () => {
      const home = mkdtempSync(join(work, 'home-'));
      chownSync(home, 65534, 65534);
      const run = await rea(INSPECT, { HOME: home, XDG_CACHE_HOME: '', REA_CODE_CACHE_DIR: '' });
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(await referenceOutput());
      expect(readdirSync(home)).toEqual([]);
    },
    60_000,
  );

  it('should leave the cache off for an invalid REA_CODE_CACHE, which doctor names', async () => {
    const dir = join(work, 'invalid');
    const doctor = await rea(['doctor'], { REA_CODE_CACHE: 'maybe', REA_CODE_CACHE_DIR: dir });
    expect(doctor.stdout).toContain('REA_CODE_CACHE="maybe" is not "on" or "off"');
    expect(existsSync(dir)).toBe(false);
  }, 60_000);

  it('should write nothing for a command that failed', async () => {
    const dir = join(work, 'failed');
    const misspelt = await rea(['inspect-artifct', subject], { REA_CODE_CACHE_DIR: dir });
    expect(misspelt.code).toBe(2);
    const missing = await rea(['inspect-artifact', join(work, 'no-such-file')], { REA_CODE_CACHE_DIR: dir });
    expect(missing.code).toBe(3);
    expect(existsSync(dir)).toBe(false);
  }, 60_000);

  it('should neither read nor write the cache under V8 coverage', async () => {
    const dir = join(work, 'coverage-cache');
    const coverage = join(work, 'coverage');
    const run = await rea(INSPECT, { REA_CODE_CACHE_DIR: dir, NODE_V8_COVERAGE: coverage });
    expect(run.code).toBe(0);
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(coverage).length).toBeGreaterThan(0);
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

/** A stamped command-line script whose main prints `word` (7 characters, so that forgeries keep its length). */
function tinyBundle(dir: string, word: string): string {
  const path = join(dir, 'cli.cjs');
  writeFileSync(
    path,
    stampCommandLine(`exports.main = async () => { process.stdout.write(${JSON.stringify(word)}); return 0; };`),
  );
  return path;
}

/** Runs `bundle` through rea's loader as the executable does (main, then keep) and returns what it printed. */
function runTiny(bundle: string, cacheDir: string): string {
  // The same driver (and so the same Node options) for every bundle: only the bundle's path differs.
  const driver = `import { loadCommandLine } from ${JSON.stringify(loader)};
const line = loadCommandLine('tiny', { bundle: process.env.TINY_BUNDLE });
if ((await line.main([])) === 0) line.keep();`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', driver], {
    encoding: 'utf8',
    env: { ...process.env, REA_CODE_CACHE: 'on', REA_CODE_CACHE_DIR: cacheDir, TINY_BUNDLE: bundle },
    timeout: 30_000,
  });
  expect(result.signal).toBe(null);
  expect(result.stderr).toBe('');
  return result.stdout;
}

/**
 * A cache file for `bundle` whose code prints "forged!": V8 checks only the source's length, so code
 * compiled from a same-length edit of the bundle runs in its place. The header is the genuine cache's,
 * with the forged payload's SHA-256.
 */
function forgeCache(bundle: string, genuine: string): Buffer {
  const forged = readFileSync(bundle, 'utf8').replace('genuine', 'forged!');
  const driver = `import { createRequire } from 'node:module';
import { Script } from 'node:vm';
const file = ${JSON.stringify(bundle)};
const script = new Script(${JSON.stringify(forged)}, { filename: file });
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(file), module, file, ${JSON.stringify(dirname(bundle))});
await module.exports.main();
process.stdout.write(script.createCachedData().toString('base64'));`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', driver], { encoding: 'utf8' });
  expect(result.stderr).toBe('');
  expect(result.stdout.startsWith('forged!')).toBe(true);
  const payload = Buffer.from(result.stdout.slice('forged!'.length), 'base64');
  const bytes = readFileSync(genuine);
  const magic = 'rea-code-cache 1\n';
  const length = bytes.readUInt32LE(magic.length);
  const header = JSON.parse(bytes.subarray(magic.length + 4, magic.length + 4 + length).toString()) as object;
  const text = Buffer.from(JSON.stringify({ ...header, sha256: createHash('sha256').update(payload).digest('hex') }));
  const size = Buffer.alloc(4);
  size.writeUInt32LE(text.length);
  return Buffer.concat([Buffer.from(magic), size, text, payload]);
}

describe('issue 22: which code cache the loader trusts', () => {
  /** A fresh cache directory and tiny bundle, with the genuine cache written by a first run. */
  function setUp(): { dir: string; bundle: string; cache: string; forged: Buffer } {
    const dir = mkdtempSync(join(work, 'trust-'));
    const bundle = tinyBundle(dir, 'genuine');
    const cacheDir = join(dir, 'cache');
    expect(runTiny(bundle, cacheDir)).toBe('genuine');
    const [name] = cacheFiles(cacheDir);
    const cache = join(cacheDir, name!);
    return { dir, bundle, cache, forged: forgeCache(bundle, cache) };
  }

  it("should run the code of a cache file the user owns alone (the forgery works: the user's own files are trusted)", () => {
    const { bundle, cache, forged } = setUp();
    writeFileSync(cache, forged);
    expect(runTiny(bundle, dirname(cache))).toBe('forged!');
  });

  it.each([
    [
      'a symbolic link to a file of the user',
      (cache: string, forged: Buffer) => {
        writeFileSync(`${cache}.elsewhere`, forged, { mode: 0o600 });
        rmSync(cache);
        symlinkSync(`${cache}.elsewhere`, cache);
      },
    ],
    [
      'a file with a second link',
      (cache: string, forged: Buffer) => {
        writeFileSync(cache, forged);
        linkSync(cache, `${cache}.second`);
      },
    ],
    [
      'a file others may write to',
      (cache: string, forged: Buffer) => {
        writeFileSync(cache, forged);
        chmodSync(cache, 0o622);
      },
    ],
  ])('should compile the bundle instead of reading %s', (_, plant) => {
    const { bundle, cache, forged } = setUp();
    plant(cache, forged);
    expect(runTiny(bundle, dirname(cache))).toBe('genuine');
  });

  // Only root can give a file to another user: run as root (as CI does), this case checks the owner.
  (process.getuid?.() === 0 ? it : it.skip)("should compile the bundle instead of reading another user's file", () => {
    const { bundle, cache, forged } = setUp();
    writeFileSync(cache, forged);
    chownSync(cache, 65534, 65534);
    expect(runTiny(bundle, dirname(cache))).toBe('genuine');
    // The cache was replaced by one of this user's.
    expect(statSync(cache).uid).toBe(0);
  });

  it('should compile the bundle instead of reading a cache in a directory others may write to', () => {
    const { bundle, cache, forged } = setUp();
    writeFileSync(cache, forged);
    chmodSync(dirname(cache), 0o777);
    expect(runTiny(bundle, dirname(cache))).toBe('genuine');
    expect(readFileSync(cache).equals(forged)).toBe(true);
  });

  it('should not wait on a named pipe planted as the cache', () => {
    const { bundle, cache } = setUp();
    rmSync(cache);
    expect(spawnSync('mkfifo', [cache]).status).toBe(0);
    expect(runTiny(bundle, dirname(cache))).toBe('genuine');
  });

  it('should run an edited bundle of the same length, not the code cached for it before', () => {
    const { bundle, cache } = setUp();
    writeFileSync(bundle, readFileSync(bundle, 'utf8').replace('genuine', 'edited!'));
    expect(runTiny(bundle, dirname(cache))).toBe('edited!');
    expect(runTiny(bundle, dirname(cache))).toBe('edited!');
  });

  it('should run an edited bundle even when its size and modification time are the same', () => {
    // npm gives every installed file the same fixed modification time.
    const fixed = new Date('1985-10-26T08:15:00Z');
    const dir = mkdtempSync(join(work, 'fixed-time-'));
    const bundle = tinyBundle(dir, 'genuine');
    utimesSync(bundle, fixed, fixed);
    const cacheDir = join(dir, 'cache');
    expect(runTiny(bundle, cacheDir)).toBe('genuine');
    expect(runTiny(bundle, cacheDir)).toBe('genuine');
    writeFileSync(bundle, readFileSync(bundle, 'utf8').replace('genuine', 'edited!'));
    utimesSync(bundle, fixed, fixed);
    expect(statSync(bundle).mtimeMs).toBe(fixed.getTime());
    expect(runTiny(bundle, cacheDir)).toBe('edited!');
  });

  it('should keep a cache for each installation of the same build, used in turn', () => {
    const dir = mkdtempSync(join(work, 'installations-'));
    const first = tinyBundle(mkdtempSync(join(dir, 'a-')), 'genuine');
    const second = join(mkdtempSync(join(dir, 'b-')), 'cli.cjs');
    writeFileSync(second, readFileSync(first));
    const cacheDir = join(dir, 'cache');
    for (const bundle of [first, second]) expect(runTiny(bundle, cacheDir)).toBe('genuine');
    const names = cacheFiles(cacheDir);
    expect(names).toHaveLength(2);
    const inodes = names.map((name) => statSync(join(cacheDir, name)).ino);
    for (const bundle of [first, second, first, second]) expect(runTiny(bundle, cacheDir)).toBe('genuine');
    expect(cacheFiles(cacheDir)).toEqual(names);
    expect(names.map((name) => statSync(join(cacheDir, name)).ino)).toEqual(inodes);
  });
});
