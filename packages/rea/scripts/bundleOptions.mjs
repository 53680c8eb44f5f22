// The esbuild options of rea's bundles (scripts/postbuild.mjs). A test bundles a provider fixture with
// exactly these options to show how a provider finds its own files once bundled.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Gives the bundle a `require` for the CommonJS dependencies it contains. */
export const BANNER =
  "import { createRequire as __reaCreateRequire } from 'node:module';\nconst require = __reaCreateRequire(import.meta.url);";

/**
 * The constants of `Number` as the values they stand for. V8 keeps a double-valued property such as
 * `Number.NaN` in a box, and code it has not optimized yet (most of a short command) allocates a fresh
 * box on every read of one: 16 bytes per `addressOrNaN` call of the instruction sweep. A literal or the
 * global `NaN` costs no allocation. `Number.NEGATIVE_INFINITY` stays: esbuild replaces a name only with
 * a JSON value or an identifier.
 */
export const NUMBER_CONSTANTS = {
  'Number.NaN': 'NaN',
  'Number.POSITIVE_INFINITY': 'Infinity',
  'Number.MAX_SAFE_INTEGER': '9007199254740991',
  'Number.MIN_SAFE_INTEGER': '-9007199254740991',
  'Number.MAX_VALUE': '1.7976931348623157e+308',
  'Number.EPSILON': '2.220446049250313e-16',
};

/**
 * The name and version of every workspace package (packages/*, packages/providers/*), as their manifests
 * state them now: the bundles carry them as `__REA_BUNDLED_VERSIONS__`, which `packageVersion` of
 * @rea/provider-kit answers from. A bundle holds the code of exactly these versions, so it states them
 * itself rather than resolving and reading manifests at run time (a few milliseconds of a cold start;
 * a manifest installed beside the bundle may also be another version's).
 */
export function workspaceVersions() {
  const packages = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const versions = {};
  for (const parent of [packages, join(packages, 'providers')]) {
    for (const entry of readdirSync(parent, { withFileTypes: true })) {
      const manifest = join(parent, entry.name, 'package.json');
      if (!entry.isDirectory() || !existsSync(manifest)) continue;
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8'));
      if (typeof name === 'string' && typeof version === 'string') versions[name] = version;
    }
  }
  return versions;
}

/** What every bundle defines: {@link NUMBER_CONSTANTS} and the workspace's versions. */
const DEFINE = { ...NUMBER_CONSTANTS, __REA_BUNDLED_VERSIONS__: JSON.stringify(workspaceVersions()) };

/** The server's bundle: ESM for Node 20, written by this script, minified. */
export const BUNDLE = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  write: false,
  // The workspace's tsconfig maps packages to their TypeScript sources; bundle the built files instead.
  tsconfigRaw: {},
  // CommonJS dependencies in the bundle may require() Node built-ins.
  banner: { js: BANNER },
  // Smaller source parses faster. Names are not kept: keeping them calls a helper that defines `name` on
  // every function a running function creates (each closure of a decoder's inner loop), about 5 ms of a
  // warm listing of 4,656 classes. REA's errors set their names themselves (ReaError, RpcError).
  minify: true,
  legalComments: 'eof',
  define: DEFINE,
  metafile: true,
  logLevel: 'warning',
};

/**
 * The command line's bundle (dist/cli.cjs): one CommonJS script, so dist/commandLine.js can compile it
 * with V8's cached code of earlier runs. esbuild evaluates a module the entry reaches only through a
 * dynamic import when that import runs, as an ES module build would. import.meta.url is the script's own
 * URL (the wrapper of {@link stampCommandLine} defines it), so code that resolves files from its module
 * resolves them from dist/ as the ES module chunks did.
 */
export const COMMAND_LINE_BUNDLE = {
  ...BUNDLE,
  format: 'cjs',
  banner: {},
  define: { ...DEFINE, 'import.meta.url': '__reaModuleUrl' },
};

/**
 * The executable (dist/bin.cjs): dist/bin.js and the modules it imports (its version, the help text, the
 * command line's loader) as one CommonJS script, which Node.js runs without starting its ES module loader.
 * The stdio server's ES modules (dist/mcpStdio.js and its chunks) stay outside it, imported by `rea mcp`.
 * import.meta.url is the script's own URL, so the modules find ../package.json and dist/cli.cjs as before.
 */
export const ENTRY_BUNDLE = {
  ...BUNDLE,
  format: 'cjs',
  banner: { js: 'const __reaEntryUrl = require("node:url").pathToFileURL(__filename).href;' },
  define: { ...DEFINE, 'import.meta.url': '__reaEntryUrl' },
  external: ['./mcpStdio.js'],
};

/** The last line of a stamped script (see {@link stampCommandLine}), with the SHA-256 it gives. */
export const STAMP = /\/\/! rea-bundle ([0-9a-f]{64})\n?$/;

/**
 * A script dist/commandLine.js compiles: `code` as a function of the CommonJS module parameters and of
 * `__reaLoadExtra` (how dist/cli.cjs asks for dist/cli-extra.cjs; see scripts/postbuild.mjs), in strict
 * mode (as the ES modules it was built from), with its URL for import.meta.url, and a last line giving the
 * SHA-256 of everything before it, which names the build's code cache.
 */
export function stampCommandLine(code) {
  // dist/commandLine.js decodes a stamped script as Latin-1: it must be ASCII.
  const outside = /[\u0080-\uffff]/.exec(code);
  if (outside)
    throw new Error(`the command line is not ASCII: U+${outside[0].codePointAt(0).toString(16)} at ${outside.index}`);
  const body =
    '(function (exports, require, module, __filename, __dirname, __reaLoadExtra) {"use strict";' +
    'const __reaModuleUrl = require("node:url").pathToFileURL(__filename).href;\n' +
    `${code}\n})\n`;
  return `${body}//! rea-bundle ${createHash('sha256').update(body).digest('hex')}\n`;
}
