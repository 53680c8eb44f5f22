// Loads the command line (dist/cli.cjs, one CommonJS bundle written by scripts/postbuild.mjs) and keeps
// V8's compiled code of it between runs.
//
// Every `rea <command>` is a new process: compiling the bundle's functions again each time was a fifth of
// a short command's wall time (`rea analyze` of a 150 KB program). Node 20 caches the compiled code of no
// ES module, so the command line is one script, compiled through `vm.Script` with the code V8 produced for
// it in an earlier run. The cache is a file per bundle, Node.js version and architecture in REA's cache
// directory (REA_CODE_CACHE_DIR, else the platform's per-user cache directory), written only in a
// directory the user owns and no one else can write to, replaced atomically, and checked against a
// SHA-256 of its content before V8 sees it. REA_CODE_CACHE=off compiles every run and writes nothing.
// Whatever goes wrong with the cache (no home, a full disk, a corrupt or foreign file) costs only the
// compile: the command runs the same either way.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

/** The cache file's header, as JSON after {@link MAGIC} and a 4-byte length. */
interface Header {
  /** SHA-256 of the payload (V8's cached data). */
  sha256: string;
  /** The commands whose runs compiled the functions the payload holds. */
  commands: string[];
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
  const given = env['REA_CODE_CACHE_DIR'];
  return given ? resolve(given) : defaultCacheDirectory(env);
}

/**
 * True when `directory` is a directory only its owner, this user, can write to: code read from it runs.
 * With `create`, a missing one is made first (private).
 */
function privateDirectory(directory: string, create: boolean): boolean {
  try {
    if (create) mkdirSync(directory, { recursive: true, mode: 0o700 });
    const stat = statSync(directory);
    if (!stat.isDirectory()) return false;
    if (process.platform === 'win32') return true;
    if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) return false;
    return (stat.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** The cached data in `file` and the commands that made it, when its header and checksum hold. */
function readCache(file: string): { data: Buffer; commands: string[] } | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return null;
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
    createHash('sha256').update(data).digest('hex') !== header.sha256
  )
    return null;
  return { data, commands: header.commands.filter((command) => typeof command === 'string') };
}

/** Writes `data` to `file` through a temporary file in the same directory, so a reader sees all or nothing. */
function writeCache(file: string, data: Buffer, commands: string[]): void {
  const header = Buffer.from(
    JSON.stringify({ sha256: createHash('sha256').update(data).digest('hex'), commands } satisfies Header),
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
 * Removes the caches of other builds of the command line (not `build`) for this Node.js version and
 * architecture, and the temporary files of writes that never finished (a process killed while writing)
 * once they are an hour old.
 */
function removeStale(directory: string, build: string, suffix: string): void {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return;
  }
  const now = Date.now();
  for (const name of names) {
    const path = join(directory, name);
    try {
      if (name.startsWith('cli-') && name.endsWith(suffix) && !name.startsWith(build)) rmSync(path, { force: true });
      else if (name.startsWith('cli-') && name.endsWith('.tmp') && now - statSync(path).mtimeMs > 3_600_000)
        rmSync(path, { force: true });
    } catch {
      // Another run may be cleaning up too.
    }
  }
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
  const stamp = STAMP.exec(source.slice(-100))?.[1];
  const directory = stamp === undefined ? null : cacheDirectory(env);
  // V8 rejects code cached under other flags: each set of Node.js options keeps a cache of its own.
  const options = createHash('sha256')
    .update([...process.execArgv, env['NODE_OPTIONS'] ?? ''].join('\0'))
    .digest('hex')
    .slice(0, 8);
  const build = `cli-${stamp?.slice(0, 16)}-`;
  const suffix = `-node${process.versions.node}-${process.arch}.v8cache`;
  const name = `${build}${options}${suffix}`;
  const file = directory === null ? null : join(directory, name);
  const cached = file === null || !privateDirectory(directory!, false) ? null : readCache(file);
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
  return {
    main,
    keep() {
      if (file === null || directory === null) return;
      if (contributed?.includes(command) === true) return;
      if (!privateDirectory(directory, true)) return;
      try {
        const commands = contributed ? [...contributed, command].slice(-MAX_COMMANDS) : [command];
        writeCache(file, script.createCachedData(), commands);
        removeStale(directory, build, suffix);
      } catch {
        // The cache only saves time.
      }
    },
  };
}
