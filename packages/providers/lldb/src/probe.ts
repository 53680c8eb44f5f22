// What `rea doctor` reports of the LLDB provider, read from files only: loading LLDB's Python module
// takes seconds (and `lldb --version` one), and a probe starts nothing. It finds the Python that would
// run the agent, and LLDB's module where the agent would look for it, and names LLDB's version from the
// LLVM library beside it.
import { accessSync, constants, existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import type { ProbeResult } from '@rea/provider-kit';

const REMEDY =
  'Install LLDB with its Python module (Debian: apt-get install lldb python3-lldb-14), or set REA_LLDB_PYTHONPATH to the directory holding the lldb module (what `lldb -P` prints).';
/** What still works without LLDB, said in every "not ready" reason. */
const WITHOUT = 'observe_native_calls needs it; capture_process_scenario works without it';

/** The environment the probe reads (the process's by default). */
export interface LldbProbeEnvironment {
  env: NodeJS.ProcessEnv;
}

function executableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `name` found on PATH (or `name` itself when it holds a slash), or null. */
function onPath(name: string, env: NodeJS.ProcessEnv): string | null {
  if (name.includes('/')) return executableFile(name) ? name : null;
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (dir && executableFile(join(dir, name))) return join(dir, name);
  }
  return null;
}

/** Subdirectories of `dir` whose names match `pattern`, newest version first; none when unreadable. */
function children(dir: string, pattern: RegExp): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => pattern.test(name))
      .sort((a, b) => b.localeCompare(a, 'en', { numeric: true }))
      .map((name) => join(dir, name));
  } catch {
    return [];
  }
}

/** Where the agent looks for LLDB's module when REA_LLDB_PYTHONPATH is unset, in its order. */
function defaultModuleDirs(env: NodeJS.ProcessEnv): string[] {
  const dirs: string[] = [];
  const lldb = onPath('lldb', env);
  const prefixes: string[] = [];
  if (lldb !== null) {
    try {
      prefixes.push(dirname(dirname(realpathSync(lldb))));
    } catch {
      // A dangling link: the installation is looked for where distributions put it.
    }
  }
  prefixes.push(...children('/usr/lib', /^llvm-\d+$/));
  for (const prefix of prefixes) {
    for (const python of children(join(prefix, 'lib'), /^python3(\.\d+)?$/)) {
      for (const kind of ['dist-packages', 'site-packages']) dirs.push(join(python, kind));
    }
  }
  return [...new Set(dirs)];
}

/**
 * True when `dir` holds LLDB's module: its package file and the native library it loads, `_lldb*.so`
 * (usually a link to liblldb) or, where that link dangles as some distributions ship it, the liblldb
 * of the installation's lib directory, which the agent then loads itself.
 */
function holdsModule(dir: string): boolean {
  const lldb = join(dir, 'lldb');
  if (!existsSync(join(lldb, '__init__.py'))) return false;
  if (children(lldb, /^_lldb.*\.(so|pyd|dylib)$/).some((file) => existsSync(file))) return true;
  return children(dirname(dirname(dir)), /^liblldb\.so/).some((file) => existsSync(file));
}

/** LLDB's version from the LLVM library of the installation holding `moduleDir`, or null. */
function versionNear(moduleDir: string): string | null {
  for (let dir = moduleDir; dirname(dir) !== dir; dir = dirname(dir)) {
    const llvm = /^llvm-(\d+)$/.exec(dir.split('/').pop() ?? '');
    const libraries = children(join(dir, 'lib'), /^libLLVM-\d+\.\d+\.\d+\.so/);
    const full = /^libLLVM-(\d+\.\d+\.\d+)\.so/.exec(libraries[0]?.split('/').pop() ?? '');
    if (full) return full[1]!;
    if (llvm) return llvm[1]!;
  }
  return null;
}

/**
 * The LLDB provider's readiness for `rea doctor`: ready with LLDB's version when the Python that runs
 * the agent and LLDB's module are there; otherwise not ready, saying which is missing and what still
 * works. A Python that cannot load the module found is only found out by a trace, which says so.
 */
export function probeLldb({ env }: LldbProbeEnvironment = { env: process.env }): Promise<ProbeResult> {
  const python = env['REA_LLDB_PYTHON'] || 'python3';
  if (onPath(python, env) === null) {
    return Promise.resolve({
      status: 'unavailable',
      reason: `Python 3 (${python}) was not found to run LLDB (${WITHOUT})`,
      remediation: `Install python3 or set REA_LLDB_PYTHON to its path. ${REMEDY}`,
    });
  }
  const explicit = env['REA_LLDB_PYTHONPATH'];
  const dirs = explicit ? [explicit] : defaultModuleDirs(env);
  const found = dirs.find(holdsModule);
  if (found === undefined) {
    const where = explicit
      ? `REA_LLDB_PYTHONPATH (${explicit})`
      : dirs.length > 0
        ? dirs.join(', ')
        : 'no LLDB installation';
    return Promise.resolve({
      status: 'unavailable',
      reason: `LLDB's Python module was not found in ${where} (${WITHOUT})`,
      remediation: REMEDY,
    });
  }
  const version = versionNear(found);
  return Promise.resolve({
    status: 'ready',
    version: version === null ? 'LLDB' : `LLDB ${version}`,
    details: { python, module: found },
  });
}
