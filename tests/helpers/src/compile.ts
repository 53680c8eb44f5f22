import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

/** One compiler or linker invocation producing a fixture. */
export interface CompileRequest {
  /** Input file(s): C, assembly, objects. Their contents are part of the cache key. */
  source: string | readonly string[];
  /** Executable to run (`gcc`, `clang`, `x86_64-w64-mingw32-gcc`, `llvm-mc`, `ld64.lld-14`, …). */
  compiler: string;
  /** Arguments placed before the inputs. */
  args?: readonly string[];
  /** File name of the product inside the per-run fixture directory. */
  output: string;
  /** The flag that names the output file (default `-o`); one ending in `:` or `=` is joined to the path (`/out:`). */
  outputFlag?: string;
}

const built = new Map<string, string>();
const versions = new Map<string, string>();

/** One shared directory: products are keyed by content, so runs reuse them and never collide. */
function fixtureRoot(): string {
  // A jest run moves TMPDIR to a private directory; compiled fixtures stay in the shared cache it names.
  const dir = process.env['REA_TEST_FIXTURE_ROOT'] ?? join(tmpdir(), `rea-fixtures-${process.getuid?.() ?? 'user'}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

function toolVersion(tool: string): string {
  let version = versions.get(tool);
  if (version === undefined) {
    const result = spawnSync(tool, ['--version'], { encoding: 'utf8', timeout: 10_000 });
    version = `${result.stdout ?? ''}${result.stderr ?? ''}`.slice(0, 2000);
    versions.set(tool, version);
  }
  return version;
}

const probed = new Map<string, boolean>();

/**
 * The first of `names` that runs on this host (found on PATH and starting), or null.
 * Results are cached for the run.
 */
export function findTool(...names: string[]): string | null {
  for (const name of names) {
    if (!probed.has(name)) {
      // Only a tool that is absent or cannot be executed is missing: one that is merely slow to answer
      // on a loaded machine (a timeout) is present, and its tests must run rather than be skipped.
      const result = spawnSync(name, ['--version'], { stdio: 'ignore', timeout: 30_000 });
      const code = (result.error as NodeJS.ErrnoException | undefined)?.code;
      probed.set(name, code !== 'ENOENT' && code !== 'EACCES');
    }
    if (probed.get(name)) return name;
  }
  return null;
}

/** Null when every tool runs here, else a reason naming the missing ones (for `skipUnless`). */
export function toolsMissing(...names: string[]): string | null {
  const missing = names.filter((name) => findTool(name) === null);
  return missing.length === 0 ? null : `not installed on this host: ${missing.join(', ')}`;
}

/**
 * Compiles (or assembles, or links) a fixture and returns its path. Products live under the system
 * temporary directory keyed by a hash of the tool and its version, the arguments, the output name and
 * the input contents, so identical requests are built once (per run and across runs).
 * A failing build throws with the tool's stderr; check {@link toolsMissing} first to skip instead.
 */
export function compileFixture(request: CompileRequest): string {
  const sources = typeof request.source === 'string' ? [request.source] : [...request.source];
  const hash = createHash('sha256');
  hash.update(
    JSON.stringify([
      request.compiler,
      toolVersion(request.compiler),
      request.args ?? [],
      request.output,
      request.outputFlag ?? '-o',
    ]),
  );
  for (const source of sources) hash.update(readFileSync(source));
  const key = hash.digest('hex').slice(0, 16);
  const cached = built.get(key);
  if (cached !== undefined && existsSync(cached)) return cached;
  const dir = join(fixtureRoot(), key);
  const output = join(dir, basename(request.output));
  if (existsSync(output)) {
    built.set(key, output);
    return output;
  }
  // Build in a private directory and publish it by rename, so concurrent workers never see half a file.
  const staging = mkdtempSync(join(fixtureRoot(), `${key}.staging-`));
  const staged = join(staging, basename(request.output));
  try {
    const flag = request.outputFlag ?? '-o';
    const named = flag.endsWith(':') || flag.endsWith('=') ? [`${flag}${staged}`] : [flag, staged];
    execFileSync(request.compiler, [...(request.args ?? []), ...sources, ...named], {
      cwd: staging,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    });
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? String(error);
    throw new Error(`${request.compiler} failed to build ${request.output}:\n${stderr}`, { cause: error });
  }
  try {
    renameSync(staging, dir);
  } catch {
    // Another worker published the same product first; use theirs.
    rmSync(staging, { recursive: true, force: true });
  }
  built.set(key, output);
  return output;
}
