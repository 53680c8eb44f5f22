// Loads the command line (dist/cli.cjs, and dist/cli-extra.cjs when a command first needs it: CommonJS
// bundles written by scripts/postbuild.mjs) and keeps V8's compiled code of them between runs.
//
// Every `rea <command>` is a new process: compiling the bundle's functions again each time was a fifth of
// a short command's wall time (`rea analyze` of a 150 KB program). Node 20 caches the compiled code of no
// ES module, so the command line is one script, compiled through `vm.Script` with the code V8 produced for
// it in an earlier run. The cache is a file per bundle, command, Node.js version, architecture and set
// of Node options and installation in REA's cache directory (REA_CODE_CACHE_DIR, else the platform's per-user
// cache directory). Code read from it runs, and V8 checks only that it was made for a source of the same
// length: so a cache is used only from a directory no one but the user (and root) can change, down every
// directory above it; only when it is a regular file with one link, owned by the user, that no one else
// can write to, opened without following a link or waiting on a pipe; only when its header names the
// bundle file as it is now (device, inode, size, modification and status change times); and only when
// the SHA-256 in its header matches. It is replaced atomically. REA_CODE_CACHE=off, or a run under V8 coverage (NODE_V8_COVERAGE, whose counts need code
// compiled for them), compiles every time and writes nothing. Whatever goes wrong with the cache (no
// home, a full disk, a corrupt or foreign file) costs only the compile: the command runs the same.
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants as fs,
  existsSync,
  fstatSync,
  futimesSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
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
/** The command part of a cache file's name: the command, or `_` for an invocation that names none. */
const COMMAND_PART = /^(?:_|[a-z][a-z0-9-]{0,63})$/;
/**
 * A cache file's name: the build's stamp, the installation and Node options, the command, Node.js
 * version, architecture. A name without the command is an earlier version's cache, shared by every
 * command: pruned like the others.
 */
const CACHE_NAME =
  /^cli-[0-9a-f]{16}-[0-9a-f]{8}(?:-(?:_|[a-z][a-z0-9-]{0,63}))?-node[0-9]+\.[0-9]+\.[0-9]+-[a-z0-9]+\.v8cache$/;
/** A cache being written (or abandoned by a process killed while writing it). */
const TEMPORARY_NAME =
  /^cli-[0-9a-f]{16}-[0-9a-f]{8}(?:-(?:_|[a-z][a-z0-9-]{0,63}))?-node[0-9]+\.[0-9]+\.[0-9]+-[a-z0-9]+\.v8cache\.[0-9]+-[0-9a-f]{8}\.tmp$/;
/**
 * At most this many caches are kept: one per script and command used (a command that loads
 * dist/cli-extra.cjs keeps two), and several installations and Node.js versions may share the directory.
 */
const MAX_CACHES = 32;
/** A cache not used for this long is removed by the next write. */
const UNUSED_MS = 30 * 24 * 3_600_000;
/** A used cache's modification time is brought forward at most this often (it marks the cache as in use). */
const TOUCH_MS = 24 * 3_600_000;

/** The cache file's header, as JSON after {@link MAGIC} and a 4-byte length. */
interface Header {
  /** SHA-256 of the payload (V8's cached data). */
  sha256: string;
  /** The command whose run compiled the functions the payload holds (one, in a list). */
  commands: string[];
  /** The bundle file the payload was made from: an edited bundle (same length or not) has another. */
  bundle: string;
}

/**
 * The bundle file as it is now, for {@link Header.bundle}: its status change time too, which no one can
 * set back (an edit that restores the size and modification time, where they are fixed, still differs).
 */
function bundleIdentity(stat: Stats): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
}

/**
 * The bundle's source and its identity, both from one open descriptor. A stamped bundle is ASCII (the
 * build escapes every other character, and refuses to stamp a bundle that is not), so it is decoded as
 * Latin-1, a copy of its bytes: decoding 2 MB as UTF-8 takes a third longer. Any other file is decoded as
 * UTF-8.
 *
 * The bytes are read into a buffer twice the bundle's size (`room`), where the cache is read next: a
 * command's cache is larger than the bundle (1.2 MB of cached code for `rea analyze`, from a bundle of
 * 0.9 MB), and memory the process has touched already costs nothing more, where a fresh buffer costs a
 * page fault per 4 KiB. The half never touched is never paged in.
 */
function readBundle(bundle: string): { source: string; identity: string; room: Buffer } {
  const descriptor = openSync(bundle, 'r');
  try {
    const stat = fstatSync(descriptor);
    const identity = bundleIdentity(stat);
    const room = Buffer.allocUnsafeSlow(Math.max(1, stat.size * 2));
    let length = 0;
    for (;;) {
      if (length === room.length) throw new Error(`${bundle} grew while it was read`);
      const count = readSync(descriptor, room, length, room.length - length, length);
      if (count === 0) break;
      length += count;
    }
    const stamped = STAMP.test(room.toString('latin1', Math.max(0, length - 100), length));
    return { source: room.toString(stamped ? 'latin1' : 'utf8', 0, length), identity, room };
  } finally {
    closeSync(descriptor);
  }
}

/** The command line, loaded, and what to do once it has run. */
export interface CommandLine {
  main: Main;
  /**
   * Writes the command's cache when there was none or V8 rejected it. Call after the command's output is
   * flushed; never throws.
   */
  keep(): void;
}

/** The per-user cache directory REA uses when REA_CODE_CACHE_DIR is unset (null: none can be found). */
function defaultCacheDirectory(env: NodeJS.ProcessEnv): string | null {
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

/** This user's id, or null where the platform has none (Windows). */
const uid = typeof process.getuid === 'function' ? process.getuid() : null;

/**
 * True when `stat` is of something only its owner, this user, can write to. Windows reports no owner:
 * there the directory is trusted as named (the default, under %LOCALAPPDATA%, is the user's own).
 */
function ownOnly(stat: Stats): boolean {
  if (uid === null) return true;
  return stat.uid === uid && (stat.mode & 0o022) === 0;
}

/**
 * The cache directory with every link resolved, when no one but this user (and root) can change what it
 * holds: it is the user's own and writable by no one else, and each directory above it belongs to the
 * user or to root and is writable by no one else unless it is sticky (as /tmp is: there others cannot
 * rename or remove what is not theirs). Null otherwise, or when it does not exist.
 */
function trustedDirectory(directory: string): string | null {
  try {
    const real = realpathSync(directory);
    const own = statSync(real);
    if (!own.isDirectory() || !ownOnly(own)) return null;
    if (uid === null) return real;
    for (let above = dirname(real); ; above = dirname(above)) {
      const stat = statSync(above);
      if (stat.uid !== uid && stat.uid !== 0) return null;
      if ((stat.mode & 0o022) !== 0 && (stat.mode & 0o1000) === 0) return null;
      if (dirname(above) === above) return real;
    }
  } catch {
    return null;
  }
}

/**
 * Creates the cache directory (0700) and the missing directories above it, but only below an existing
 * directory of this user's own: a process of root's that kept a user's HOME creates nothing there.
 */
function createDirectory(directory: string): void {
  let existing = dirname(directory);
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  if (uid !== null && statSync(existing).uid !== uid) return;
  mkdirSync(directory, { recursive: true, mode: 0o700 });
}

/**
 * The cached data in `file`: only from a regular file with one link, owned by this user and writable by
 * no one else, opened without following a symbolic link (checked on the open descriptor, so nothing can
 * be swapped in between), made from the bundle as it is now (`bundle`), whose payload matches the
 * SHA-256 in its header.
 */
function readCache(file: string, bundle: string, spare: Buffer): Buffer | null {
  let descriptor: number;
  try {
    // Not blocking: a named pipe planted there would otherwise hold the process before any check.
    descriptor = openSync(file, fs.O_RDONLY | (fs.O_NOFOLLOW ?? 0) | (fs.O_NONBLOCK ?? 0));
  } catch {
    return null;
  }
  let bytes: Buffer;
  try {
    const stat = fstatSync(descriptor);
    if (!stat.isFile() || stat.nlink !== 1 || !ownOnly(stat)) return null;
    // Read where the bundle's bytes were once its text is made (see readBundle): memory the process has
    // touched already, where a fresh buffer would cost a page fault per 4 KiB (about 4 ms).
    bytes = stat.size <= spare.length ? spare.subarray(0, stat.size) : Buffer.allocUnsafe(stat.size);
    let read = 0;
    while (read < bytes.length) {
      const count = readSync(descriptor, bytes, read, bytes.length - read, read);
      if (count === 0) return null;
      read += count;
    }
    // A cache in use is marked so (its modification time) at most daily: pruning keeps what is used.
    if (Date.now() - stat.mtimeMs > TOUCH_MS) {
      const now = new Date();
      futimesSync(descriptor, now, now);
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
  return data;
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
    const cache = CACHE_NAME.test(name);
    if ((!cache && !TEMPORARY_NAME.test(name)) || name === current) continue;
    const path = join(directory, name);
    try {
      const stat = lstatSync(path);
      if (!stat.isFile()) continue;
      if (!cache) {
        if (now - stat.mtimeMs > 3_600_000) rmSync(path, { force: true });
      } else if (now - stat.mtimeMs > UNUSED_MS) rmSync(path, { force: true });
      else caches.push({ path, used: stat.mtimeMs });
    } catch {
      // Another run may be cleaning up too.
    }
  }
  caches.sort((a, b) => b.used - a.used);
  for (const { path } of caches.slice(MAX_CACHES - 1)) {
    try {
      rmSync(path, { force: true });
    } catch {
      // As above.
    }
  }
}

/** What a stamped script's function is called with: the CommonJS module parameters and `__reaLoadExtra`. */
type Wrapper = (
  exports: object,
  require: NodeJS.Require,
  module: { exports: object },
  filename: string,
  directory: string,
  loadExtra: LoadExtra | undefined,
) => void;

/**
 * How dist/cli.cjs loads dist/cli-extra.cjs (see scripts/postbuild.mjs): with the registry of the modules
 * the extra script takes from it, by key; answers the extra script's exports, a function per package.
 */
type LoadExtra = (registry: () => Record<string, unknown>, stamp: string) => Record<string, () => unknown>;

/** How dist/cli-extra.cjs names a module it takes from dist/cli.cjs (scripts/postbuild.mjs). */
const SHARED_PREFIX = 'rea-core:';

/** A script compiled and run: its exports, and how to keep the code compiled for it. */
interface RanScript {
  exports: Record<string, unknown>;
  /** Writes the script's cache for this command when there was none or V8 rejected it; never throws. */
  keep(): void;
}

/**
 * Compiles and runs the stamped script `bundle` with the cached code of an earlier run of the same
 * `command` when there is one; each script keeps caches of its own.
 */
function runScript(
  bundle: string,
  command: string,
  env: NodeJS.ProcessEnv,
  require: NodeJS.Require,
  options: { loadExtra?: LoadExtra; stamp?: string; flags: () => void },
): RanScript {
  const { source, identity, room } = readBundle(bundle);
  const stamp = STAMP.exec(source.slice(-100))?.[1];
  if (options.stamp !== undefined && stamp !== options.stamp)
    throw new Error(`${bundle} is not the script the command line was built with (another build's, or damaged)`);
  // The flags V8 stamps its cached code with must be those of the runs that read it.
  options.flags();
  const directory = stamp === undefined ? null : cacheDirectory(env);
  // V8 rejects code cached under other flags: each set of Node.js options keeps a cache of its own, and
  // so does each installation of the same build (each names its own bundle file in the header).
  const variant = createHash('sha256')
    .update([bundle, ...process.execArgv, env['NODE_OPTIONS'] ?? ''].join('\0'))
    .digest('hex')
    .slice(0, 8);
  const part = COMMAND_PART.test(command) ? command : '_';
  const name = `cli-${stamp?.slice(0, 16)}-${variant}-${part}-node${process.versions.node}-${process.arch}.v8cache`;
  const trusted = directory === null ? null : trustedDirectory(directory);
  const cached = trusted === null ? null : readCache(join(trusted, name), identity, room);
  const script = new Script(source, {
    filename: bundle,
    ...(cached ? { cachedData: cached } : {}),
  });
  const wrapper = script.runInThisContext() as Wrapper;
  const module = { exports: {} as Record<string, unknown> };
  wrapper(module.exports, require, module, bundle, dirname(bundle), options.loadExtra);
  const taken = cached !== null && script.cachedDataRejected !== true;
  return {
    exports: module.exports,
    keep() {
      if (directory === null || taken) return;
      try {
        if (!existsSync(directory)) createDirectory(directory);
        const target = trustedDirectory(directory);
        if (target === null) return;
        options.flags();
        writeCache(join(target, name), script.createCachedData(), [part], identity);
        prune(target, name);
      } catch {
        // The cache only saves time.
      }
    },
  };
}

/**
 * Compiles and runs dist/cli.cjs (a function expression of the CommonJS module parameters) with the
 * cached code of an earlier run of the same `command` when there is one, and returns its `main`; and
 * dist/cli-extra.cjs beside it the same way, when the command first imports one of the packages it holds.
 *
 * Each command keeps a cache of its own. V8 materializes every function a cache holds before the command
 * runs, so a cache shared by all commands would make each pay for the others' functions: with a cache
 * that also held those of `rea --llms` (the catalog's), `rea analyze /usr/bin/ls` read 1.7 MB of cached
 * code instead of 1.3 MB and took 1.04x the time.
 *
 * `options.flags` sets again the V8 flags the caller set for the command (the executable sets two), before
 * each script is compiled and before its cache is written: V8 refuses code cached under other flags, and
 * starting a worker thread changes one of them (see dist/bin.cjs).
 */
export function loadCommandLine(
  command: string,
  options: {
    /** The main script (default: dist/cli.cjs beside this module); dist/cli-extra.cjs is beside it. */
    bundle?: string;
    /** Where REA_CODE_CACHE and REA_CODE_CACHE_DIR are read (default: `process.env`). */
    env?: NodeJS.ProcessEnv;
    flags?: () => void;
  } = {},
): CommandLine {
  const bundle = options.bundle ?? join(dirname(fileURLToPath(import.meta.url)), 'cli.cjs');
  const env = options.env ?? process.env;
  const flags = options.flags ?? (() => undefined);
  let extra: RanScript | null = null;
  const loadExtra: LoadExtra = (registry, stamp) => {
    if (extra === null) {
      const extraBundle = join(dirname(bundle), 'cli-extra.cjs');
      const shared = registry();
      const own = createRequire(extraBundle);
      // A module dist/cli.cjs holds is its copy; anything else (Node.js built-ins, the files beside the
      // script) is required as usual.
      const require = Object.assign((id: string) => {
        if (Object.hasOwn(shared, id)) return shared[id];
        if (id.startsWith(SHARED_PREFIX)) throw new Error(`${bundle} holds no module ${id} for ${extraBundle}`);
        return own(id);
      }, own);
      try {
        extra = runScript(extraBundle, command, env, require as NodeJS.Require, { stamp, flags });
      } catch (error) {
        const cause = error instanceof Error ? error.message.split('\n')[0] : String(error);
        throw new Error(`REA's installation is incomplete: ${extraBundle} could not be loaded (${cause}).`, {
          cause: error,
        });
      }
    }
    return extra.exports as Record<string, () => unknown>;
  };
  const core = runScript(bundle, command, env, createRequire(bundle), { loadExtra, flags });
  const { main } = core.exports as { main?: Main };
  if (typeof main !== 'function') throw new Error(`${bundle} does not export the command line`);
  return {
    main,
    keep() {
      core.keep();
      (extra as RanScript | null)?.keep();
    },
  };
}
