// Loads the command line (dist/cli.cjs, one CommonJS bundle written by scripts/postbuild.mjs) and keeps
// V8's compiled code of it between runs.
//
// Every `rea <command>` is a new process: compiling the bundle's functions again each time was a fifth of
// a short command's wall time (`rea analyze` of a 150 KB program). Node 20 caches the compiled code of no
// ES module, so the command line is one script, compiled through `vm.Script` with the code V8 produced for
// it in an earlier run. The cache is a file per bundle, Node.js version, architecture and set of Node
// options in REA's cache directory (REA_CODE_CACHE_DIR, else the platform's per-user cache directory).
// Code read from it runs, and V8 checks only that it was made for a source of the same length: so a
// cache is used only when it is a regular file with one link, owned by this user, that no one else can
// write to, opened without following a symbolic link; when its header names the bundle file as it is
// now (size, modification time, inode); and when the SHA-256 in its header matches. It is replaced
// atomically. REA_CODE_CACHE=off, or a run under V8 coverage (NODE_V8_COVERAGE, whose counts need code
// compiled for them), compiles every time and writes nothing. Whatever goes wrong with the cache (no
// home, a full disk, a corrupt or foreign file) costs only the compile: the command runs the same.
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants as fs,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import type { Stats } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

/** The command line's `main`: runs one invocation and resolves to its exit status. */
type Main = (argv: readonly string[]) => Promise<number>;

/** What the last line of dist/cli.cjs says: `//! rea-bundle <sha256 of everything before that line>`. */
const STAMP = /\/\/! rea-bundle ([0-9a-f]{64})\n?$/;
/** The cache file's first bytes; the format's version is part of them. */
const MAGIC = Buffer.from('rea-code-cache 1\n');
/** At most this many commands are remembered as having contributed their functions to a cache. */
const MAX_COMMANDS = 64;
/** At most this many caches are kept (several installations and Node.js versions may share the directory). */
const MAX_CACHES = 8;
/** A cache not used for this long is removed by the next write. */
const UNUSED_MS = 30 * 24 * 3_600_000;
/** A used cache's modification time is brought forward at most this often (it marks the cache as in use). */
const TOUCH_MS = 24 * 3_600_000;

/** The cache file's header, as JSON after {@link MAGIC} and a 4-byte length. */
interface Header {
  /** SHA-256 of the payload (V8's cached data). */
  sha256: string;
  /** The commands whose runs compiled the functions the payload holds. */
  commands: string[];
  /** The bundle file the payload was made from: an edited bundle (same length or not) has another. */
  bundle: string;
}

/** The bundle file as it is now, for {@link Header.bundle}. */
function bundleIdentity(stat: Stats): string {
  return `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
}

/** The command line, loaded, and what to do once it has run. */
export interface CommandLine {
  main: Main;
  /**
   * Writes the cache when this run has compiled what the cache lacks: when there was none, when V8
   * rejected it, or when this command had not contributed to it yet. Call after the command's output is
   * flushed; never throws.
   */
  keep(): void;
}

/** The per-user cache directory REA uses when REA_CODE_CACHE_DIR is unset (null: none can be found). */
export function defaultCacheDirectory(env: NodeJS.ProcessEnv = process.env): string | null {
  let home: string;
  try {
    home = env['HOME'] || homedir();
  } catch {
    return null;
  }
  if (process.platform === 'win32') {
    const local = env['LOCALAPPDATA'] || (home ? join(home, 'AppData', 'Local') : '');
    return local ? join(local, 'rea', 'cache') : null;
  }
  if (process.platform === 'darwin') return home ? join(home, 'Library', 'Caches', 'rea') : null;
  const xdg = env['XDG_CACHE_HOME'];
  if (xdg && xdg.startsWith('/')) return join(xdg, 'rea');
  return home ? join(home, '.cache', 'rea') : null;
}

/** The directory the cache goes in (null when caching is off or no directory can be named). */
function cacheDirectory(env: NodeJS.ProcessEnv): string | null {
  // Any other value is invalid: the command reports it (configuration_invalid); the cache stays off.
  if (env['REA_CODE_CACHE'] !== undefined && env['REA_CODE_CACHE'] !== 'on') return null;
  // Coverage counts need code compiled with them: cached code would report less.
  if (env['NODE_V8_COVERAGE']) return null;
  const given = env['REA_CODE_CACHE_DIR'];
  return given ? resolve(given) : defaultCacheDirectory(env);
}

/**
 * True when `stat` is of something only its owner, this user, can write to. Windows reports no owner:
 * there the directory is trusted as named (the default, under %LOCALAPPDATA%, is the user's own).
 */
function ownOnly(stat: Stats): boolean {
  if (process.platform === 'win32') return true;
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) return false;
  return (stat.mode & 0o022) === 0;
}

/** Creates `directory` (private) when missing; true when it is a directory only this user can write to. */
function privateDirectory(directory: string): boolean {
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    const stat = statSync(directory);
    return stat.isDirectory() && ownOnly(stat);
  } catch {
    return false;
  }
}

/**
 * The cached data in `file` and the commands that made it: only from a regular file with one link,
 * owned by this user and writable by no one else, opened without following a symbolic link (checked on
 * the open descriptor, so nothing can be swapped in between), made from the bundle as it is now
 * (`bundle`), whose payload matches the SHA-256 in its header.
 */
function readCache(file: string, bundle: string): { data: Buffer; commands: string[]; stat: Stats } | null {
  let descriptor: number;
  try {
    descriptor = openSync(file, fs.O_RDONLY | (fs.O_NOFOLLOW ?? 0));
  } catch {
    return null;
  }
  let bytes: Buffer;
  let stat: Stats;
  try {
    stat = fstatSync(descriptor);
    if (!stat.isFile() || stat.nlink !== 1 || !ownOnly(stat)) return null;
    bytes = Buffer.allocUnsafe(stat.size);
    let read = 0;
    while (read < bytes.length) {
      const count = readSync(descriptor, bytes, read, bytes.length - read, read);
      if (count === 0) return null;
      read += count;
    }
  } catch {
    return null;
  } finally {
    closeSync(descriptor);
  }
  const start = MAGIC.length + 4;
  if (bytes.length < start || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  const length = bytes.readUInt32LE(MAGIC.length);
  if (start + length > bytes.length) return null;
  let header: Header;
  try {
    header = JSON.parse(bytes.subarray(start, start + length).toString('utf8')) as Header;
  } catch {
    return null;
  }
  const data = bytes.subarray(start + length);
  if (
    typeof header?.sha256 !== 'string' ||
    !Array.isArray(header.commands) ||
    header.bundle !== bundle ||
    createHash('sha256').update(data).digest('hex') !== header.sha256
  )
    return null;
  return { data, commands: header.commands.filter((command) => typeof command === 'string'), stat };
}

/** Writes `data` to `file` through a temporary file in the same directory, so a reader sees all or nothing. */
function writeCache(file: string, data: Buffer, commands: string[], bundle: string): void {
  const header = Buffer.from(
    JSON.stringify({
      sha256: createHash('sha256').update(data).digest('hex'),
      commands,
      bundle,
    } satisfies Header),
  );
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  const temporary = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, Buffer.concat([MAGIC, length, header, data]), { mode: 0o600, flag: 'wx' });
    renameSync(temporary, file);
  } catch {
    rmSync(temporary, { force: true });
  }
}

/**
 * Keeps the directory small: removes caches unused for {@link UNUSED_MS} (another build, another Node.js
 * version), then the least recently used beyond {@link MAX_CACHES}, never `current`; and the temporary
 * files of writes that never finished (a process killed while writing) once they are an hour old.
 * Two installations used in turn keep a cache each.
 */
function prune(directory: string, current: string): void {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return;
  }
  const now = Date.now();
  const caches: Array<{ path: string; used: number }> = [];
  for (const name of names) {
    if (!name.startsWith('cli-') || name === current) continue;
    const path = join(directory, name);
    try {
      const used = statSync(path).mtimeMs;
      if (name.endsWith('.tmp')) {
        if (now - used > 3_600_000) rmSync(path, { force: true });
      } else if (name.endsWith('.v8cache')) {
        if (now - used > UNUSED_MS) rmSync(path, { force: true });
        else caches.push({ path, used });
      }
    } catch {
      // Another run may be cleaning up too.
    }
  }
  caches.sort((a, b) => b.used - a.used);
  for (const { path } of caches.slice(MAX_CACHES - 1)) rmSync(path, { force: true });
}

/**
 * Compiles and runs dist/cli.cjs (a function expression of the CommonJS module parameters) with the
 * cached code of an earlier run when there is one, and returns its `main`.
 */
export function loadCommandLine(
  command: string,
  bundle = join(dirname(fileURLToPath(import.meta.url)), 'cli.cjs'),
  env: NodeJS.ProcessEnv = process.env,
): CommandLine {
  const source = readFileSync(bundle, 'utf8');
  const identity = bundleIdentity(statSync(bundle));
  const stamp = STAMP.exec(source.slice(-100))?.[1];
  const directory = stamp === undefined ? null : cacheDirectory(env);
  // V8 rejects code cached under other flags: each set of Node.js options keeps a cache of its own.
  const options = createHash('sha256')
    .update([...process.execArgv, env['NODE_OPTIONS'] ?? ''].join('\0'))
    .digest('hex')
    .slice(0, 8);
  const name = `cli-${stamp?.slice(0, 16)}-${options}-node${process.versions.node}-${process.arch}.v8cache`;
  const file = directory === null ? null : join(directory, name);
  const cached = file === null ? null : readCache(file, identity);
  const script = new Script(source, {
    filename: bundle,
    ...(cached ? { cachedData: cached.data } : {}),
  });
  const wrapper = script.runInThisContext() as (
    exports: object,
    require: NodeJS.Require,
    module: { exports: object },
    filename: string,
    directory: string,
  ) => void;
  const module = { exports: {} as { main?: Main } };
  wrapper(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  const { main } = module.exports;
  if (typeof main !== 'function') throw new Error(`${bundle} does not export the command line`);
  // Only the commands are kept: the cached data itself need not live as long as the process.
  const contributed = cached !== null && script.cachedDataRejected !== true ? cached.commands : null;
  // A cache in use is marked so (its modification time) at most daily, so that pruning keeps it.
  if (contributed !== null && file !== null && Date.now() - cached!.stat.mtimeMs > TOUCH_MS) {
    try {
      const now = new Date();
      utimesSync(file, now, now);
    } catch {
      // Pruning may then remove it a little early.
    }
  }
  return {
    main,
    keep() {
      if (file === null || directory === null) return;
      if (contributed?.includes(command) === true) return;
      if (!privateDirectory(directory)) return;
      try {
        const commands = contributed ? [...contributed, command].slice(-MAX_COMMANDS) : [command];
        writeCache(file, script.createCachedData(), commands, identity);
        prune(directory, name);
      } catch {
        // The cache only saves time.
      }
    },
  };
}
