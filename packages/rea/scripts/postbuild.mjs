// Runs after `tsc` has built dist/ (tools/build.mjs calls it): bundles rea's three paths in one esbuild
// build with code splitting.
//
// MCP clients start `rea mcp` for every session, so its start-up, and its first tool call, are part of the
// interface. Loaded as separate modules, each reads, resolves and compiles a few hundred files (the MCP
// SDK, zod, the server, @rea/evidence, @rea/provider-kit, the providers); bundled, a few dozen chunks.
//   - dist/mcpStdio.js (what dist/bin.cjs imports for the stdio fast path) and the chunks it imports: the
//     MCP SDK, zod and the start-up core of @rea/server (transports, initialize, tools/list), the few pure
//     helpers it uses from @rea/evidence and @rea/provider-kit, and the default providers' settings
//     declarations (each provider package's `settings` module). Nothing of the call path (checked below).
//   - dist/mcpCalls.js (@rea/server/calls: sessions, ledgers, tool execution) and ./defaults.js (the
//     providers and composition tools), loaded on the first tool call; ./generated/* (the precomputed
//     catalogs), loaded at start by a dynamic import.
//   - dist/cli.cjs, every other command: the command line as a CommonJS script, which
//     dist/commandLine.js compiles with V8's cached code of earlier runs (Node 20 caches no ES module's
//     code), and dist/cli-extra.cjs, the packages only some commands import, read when first needed (see
//     bundleCommandLine). Modules they reach through dynamic imports are still evaluated only when used.
// A module two paths of the server reach is one copy in a shared chunk: a process runs one zod, one
// @rea/evidence and one of each provider (the command line, a process of its own, has its own copy). Kept out: @alexaltea/capstone-js (CommonJS glue beside its capstone.wasm, resolved
// from @rea/provider-capstone's directory) and esbuild. Chunks sit in dist/ itself, so code that reads
// files relative to its module finds them where it expects (../package.json is this package's manifest).
// The bundle holds a copy of every workspace package it uses, so this package depends on their exact
// versions (workspace:*). In the workspace, rebuild rea after rebuilding any of them (a full
// `node tools/build.mjs` does both).
import { chmodSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { BANNER, BUNDLE, COMMAND_LINE_BUNDLE, ENTRY_BUNDLE, STAMP, stampCommandLine } from './bundleOptions.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const entry = join(dist, 'mcpStdio.js');
const serverDist = dirname(fileURLToPath(import.meta.resolve('@rea/server/serve')));

/**
 * zod's translated error messages (`z.locales`, about 270 KB of the bundle) are re-exported by its
 * namespace, which esbuild cannot shake: nothing in REA reads them (REA's messages are its own, and
 * zod's default English ones come from locales/en.js, kept), so the bundle resolves the locales' index
 * to English alone instead of parsing the others in every process.
 */
const englishZodMessagesOnly = {
  name: 'rea-zod-english-only',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core)$/.test(args.resolveDir)
        ? { path: join(args.resolveDir, '..', 'locales', 'index.js'), namespace: 'rea-zod-locales' }
        : undefined,
    );
    esbuild.onLoad({ filter: /.*/, namespace: 'rea-zod-locales' }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

/**
 * The command line is compiled by dist/commandLine.js as a `vm.Script`, where a dynamic import() has no
 * loader to go to (Node 20's only way to give it one is experimental, warns on stderr, and is lost when
 * the script comes from the code cache). A dynamic import of a Node.js built-in, which esbuild would
 * keep as import(), becomes a require() of it in a one-line module, which esbuild imports lazily as any
 * other bundled module.
 */
const builtinsRequired = {
  name: 'rea-builtins-required',
  setup(esbuild) {
    esbuild.onResolve({ filter: /.*/ }, (args) =>
      args.kind === 'dynamic-import' && isBuiltin(args.path)
        ? { path: args.path, namespace: 'rea-builtin' }
        : undefined,
    );
    esbuild.onLoad({ filter: /.*/, namespace: 'rea-builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/**
 * Node.js built-ins that most commands never use but that modules of the command line import at their
 * top level (child processes for engines, zlib for archives, worker threads for large inputs, sockets
 * for servers and devices, the promise-based file system, which brings readline and stream modules, for
 * large files and bundle exports): Node.js compiles each when it is first required, and together they
 * cost every command 7-12 ms (`rea analyze` of a small program loaded 93 built-in modules; with these
 * deferred, 65). In
 * the command line, each becomes an object of getters, made from the built-in's own export names at build
 * time, that requires the built-in when one of them is first read. Only built-ins whose export is a plain
 * object are listed (a function such as `events` or `stream` could not be stood in for).
 */
const LAZY_BUILTINS = new Set([
  'child_process',
  'dgram',
  'diagnostics_channel',
  'dns',
  'fs/promises',
  'http',
  'http2',
  'https',
  'inspector',
  'net',
  'perf_hooks',
  'readline',
  'stream/promises',
  'timers/promises',
  'tls',
  'v8',
  'worker_threads',
  'zlib',
]);
const lazyBuiltins = {
  name: 'rea-lazy-builtins',
  setup(esbuild) {
    const require = createRequire(import.meta.url);
    esbuild.onResolve({ filter: /.*/ }, (args) => {
      const name = args.path.replace(/^node:/, '');
      if (args.namespace === 'rea-lazy-builtin' || args.kind === 'dynamic-import' || !LAZY_BUILTINS.has(name))
        return undefined;
      return { path: name, namespace: 'rea-lazy-builtin' };
    });
    esbuild.onLoad({ filter: /.*/, namespace: 'rea-lazy-builtin' }, (args) => {
      const exported = require(`node:${args.path}`);
      if (typeof exported !== 'object' || exported === null) throw new Error(`node:${args.path} is not an object`);
      const enumerable = new Set(Object.keys(exported));
      const getters = Object.getOwnPropertyNames(exported).map(
        (key) =>
          `${JSON.stringify(key)}: { get: () => load()[${JSON.stringify(key)}], enumerable: ${enumerable.has(key)} }`,
      );
      return {
        contents:
          `let loaded; const load = () => (loaded ??= require(${JSON.stringify(`node:${args.path}`)}));\n` +
          `module.exports = Object.defineProperties({}, { ${getters.join(', ')} });`,
        loader: 'js',
      };
    });
  },
};

/**
 * Data the command line needs only on demand, kept out of dist/cli.cjs as JSON files in dist/cli-data/,
 * which the script require()s when the module holding the data is first evaluated. Every command reads
 * the whole script (each megabyte of it costs a short command about 12 ms on a slow machine), and these
 * were over a third of it: chrome-remote-interface's protocol description (500 KB, read when the browser
 * provider connects) and the two advertised catalogs (650 KB, read by `rea mcp`).
 */
const CLI_DATA = 'cli-data';
const onDemandData = [
  {
    module: /[\\/]chrome-remote-interface[\\/]lib[\\/]protocol\.json$/,
    file: 'devtools-protocol.json',
    contents: (file) => `module.exports = require(${JSON.stringify(`./${CLI_DATA}/${file}`)});`,
    data: (path) => JSON.parse(readFileSync(path, 'utf8')),
  },
  ...[
    ['advertisedFull', 'ADVERTISED_FULL'],
    ['advertisedCompact', 'ADVERTISED_COMPACT'],
  ].map(([name, binding]) => ({
    module: new RegExp(`[\\\\/]rea[\\\\/]dist[\\\\/]generated[\\\\/]${name}\\.js$`),
    file: `${name}.json`,
    contents: (file) => `export const ${binding} = require(${JSON.stringify(`./${CLI_DATA}/${file}`)});`,
    data: async (path) => (await import(pathToFileURL(path).href))[binding],
  })),
];

/** The files of {@link onDemandData} the command line's builds wrote (checked once both are done). */
const written = new Set();

/** Replaces each module of {@link onDemandData} by a require() of its JSON file, and writes the file. */
const dataOnDemand = {
  name: 'rea-data-on-demand',
  setup(esbuild) {
    esbuild.onResolve({ filter: new RegExp(`^\\./${CLI_DATA}/`) }, (args) => ({ path: args.path, external: true }));
    for (const item of onDemandData)
      esbuild.onLoad({ filter: item.module }, async (args) => {
        mkdirSync(join(dist, CLI_DATA), { recursive: true });
        writeFileSync(join(dist, CLI_DATA, item.file), JSON.stringify(await item.data(args.path)));
        written.add(item.file);
        return { contents: item.contents(item.file), loader: 'js' };
      });
  },
};

/**
 * The packages the command line loads from a second script, dist/cli-extra.cjs, and only when a command
 * imports one of them: the Android, browser, LLDB and JavaScript providers and the MCP server, with what
 * only they use (the MCP SDK, a JavaScript parser, a DevTools client, execa's copy...), about half of the
 * command line. Every command reads, and creates the top-level functions of, the whole of dist/cli.cjs:
 * each megabyte of it costs a short command about 15 ms. `rea analyze` of a native binary and the tool
 * commands of the artifact, native and Capstone tools use none of these (`rea doctor` probes every
 * provider, and the session commands' tools are the server's: they read both).
 */
const EXTRA_PACKAGES = [
  '@rea/javascript',
  '@rea/provider-android',
  '@rea/provider-browser',
  '@rea/provider-lldb',
  '@rea/server',
];
const EXTRA_IMPORT = new RegExp(`^(?:${EXTRA_PACKAGES.map((name) => name.replace('/', '\\/')).join('|')})(?:/.*)?$`);

/**
 * In dist/cli.cjs: a dynamic import of a module of an extra package (its main entry, the MCP server's
 * `@rea/server/serve`) becomes a module that asks the loader (dist/commandLine.js, through the script's
 * `__reaLoadExtra` parameter) for dist/cli-extra.cjs, handing it the registry of the modules both scripts
 * use, and answers that module's namespace; each such specifier is added to `entries`, what
 * dist/cli-extra.cjs exports. A static import of an extra package's main entry would put the package back
 * into this script: refused. Other modules of theirs imported statically stay here (each provider's
 * settings declarations, which every command validates).
 */
function deferExtra(shared, extraStamp, entries) {
  const evidence = fileURLToPath(import.meta.resolve('@rea/evidence'));
  return {
    name: 'rea-command-line-extra',
    setup(esbuild) {
      esbuild.onResolve({ filter: EXTRA_IMPORT }, (args) => {
        if (args.kind === 'dynamic-import') {
          entries.add(args.path);
          return { path: args.path, namespace: 'rea-extra' };
        }
        if (!EXTRA_PACKAGES.includes(args.path)) return undefined;
        return {
          errors: [
            {
              text: `${args.importer} imports ${args.path} (${args.kind}): an extra package loads only through import()`,
            },
          ],
        };
      });
      // The loader checks that dist/cli-extra.cjs is the one built with this script (its stamp); a missing
      // or mismatched file is a damaged installation, said so with what to do.
      esbuild.onLoad({ filter: /.*/, namespace: 'rea-extra' }, (args) => ({
        contents: [
          'let extra;',
          'try {',
          `  extra = __reaLoadExtra(() => require('rea-extra-registry').registry, ${JSON.stringify(extraStamp)});`,
          '} catch (error) {',
          `  const { ReaError } = require(${JSON.stringify(evidence)});`,
          "  throw new ReaError('internal', error instanceof Error ? error.message : String(error), {",
          "    remediation: 'Reinstall REA (npm install rea-mcp).',",
          "    details: { reason: 'installation-incomplete' },",
          '    cause: error,',
          '  });',
          '}',
          `module.exports = extra[${JSON.stringify(args.path)}]();`,
        ].join('\n'),
        resolveDir: root,
        loader: 'js',
      }));
      esbuild.onResolve({ filter: /^rea-extra-registry$/ }, () => ({
        path: 'registry',
        namespace: 'rea-extra-registry',
      }));
      // Each module dist/cli-extra.cjs takes from this script, by its key: its namespace (an ES module) or
      // its exports (CommonJS), exactly as this script's own importers see it.
      esbuild.onLoad({ filter: /.*/, namespace: 'rea-extra-registry' }, () => ({
        contents: [
          ...shared.map(({ file, format }, n) =>
            format === 'esm' ? `import * as m${n} from ${JSON.stringify(file)};` : '',
          ),
          'export const registry = {',
          ...shared.map(
            ({ key, file, format }, n) =>
              `  ${JSON.stringify(key)}: ${format === 'esm' ? `m${n}` : `require(${JSON.stringify(file)})`},`,
          ),
          '};',
        ].join('\n'),
        resolveDir: root,
        loader: 'js',
      }));
    },
  };
}

/** The key by which dist/cli-extra.cjs requires a module of dist/cli.cjs: its metafile path. */
const SHARED_PREFIX = 'rea-core:';

/**
 * In dist/cli-extra.cjs: an import that resolves to a file dist/cli.cjs holds (`inCore`, metafile paths)
 * is required from it by key, so the two scripts share one copy of each module (one zod, one
 * @rea/evidence, each provider's settings declarations once).
 */
function sharedWithCore(inCore) {
  return {
    name: 'rea-shared-with-core',
    setup(esbuild) {
      esbuild.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.reaShared || args.namespace !== 'file' || isBuiltin(args.path)) return undefined;
        // A path resolved at run time names a file, not a module: left as it is.
        if (args.kind === 'require-resolve') return undefined;
        if (args.path.startsWith(`./${CLI_DATA}/`)) return undefined;
        const found = await esbuild.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: { reaShared: true },
        });
        // Data (JSON) is copied: what it evaluates to has no identity worth sharing.
        if (found.errors.length > 0 || found.external || found.namespace !== 'file' || found.path.endsWith('.json'))
          return undefined;
        const key = relative(process.cwd(), found.path).split('\\').join('/');
        return inCore.has(key) ? { path: `${SHARED_PREFIX}${key}`, external: true } : undefined;
      });
    },
  };
}

/**
 * True for a module that belongs to the call path, never to start-up: the server's call path (calls,
 * sessions, the server's tools, responses and budgets), any provider (not @rea/provider-kit, whose
 * settings reader start-up uses), and this package's composition and generated catalogs.
 */
function callPathModule(file) {
  const server = relative(serverDist, file);
  if (!server.startsWith('..'))
    return /^(calls|session|respond|budget|catalog|availability|tools[\\/]index)\.js$/.test(server);
  const own = relative(dist, file);
  if (!own.startsWith('..')) return /^(defaults|generated[\\/].*)\.js$/.test(own);
  // A provider's settings modules (dist/settings.js, or one folder down such as dist/device/settings.js) hold
  // its declarations and nothing of its engine: start-up validates them.
  if (
    /[\\/](@rea[\\/]provider-|packages[\\/]providers[\\/])[a-z-]+[\\/]dist[\\/](?:[a-z]+[\\/])?settings\.js$/.test(file)
  )
    return false;
  return /[\\/](@rea[\\/](artifact|native|provider-(?!kit[\\/])[a-z-]+)|packages[\\/](artifact|native|providers))[\\/]/.test(
    file,
  );
}

if (readFileSync(entry, 'utf8').startsWith(BANNER)) {
  console.error('rea: dist/mcpStdio.js is bundled already (rebuild with tsc first to bundle again)');
} else {
  await bundle();
}

/**
 * The server's two paths in one build with code splitting: dist/mcpStdio.js (the stdio fast path) and the
 * call path, a named entry, dist/mcpCalls.js, which the first tool call loads (a missing one is the
 * server's typed call-path-load-failed answer); modules both reach are one copy in a shared chunk. Then
 * the command line, dist/cli.cjs, as one script.
 */
async function bundle() {
  const cliEntry = join(dist, 'cli.js');
  for (const file of readdirSync(dist)) if (/^chunk-[A-Z0-9]+\.js$/.test(file)) rmSync(join(dist, file));
  rmSync(join(dist, CLI_DATA), { recursive: true, force: true });
  const [result, commandLine, executable] = await Promise.all([
    build({
      ...BUNDLE,
      entryPoints: { mcpStdio: entry, mcpCalls: join(serverDist, 'calls.js') },
      splitting: true,
      outdir: dist,
      chunkNames: 'chunk-[hash]',
      external: ['@alexaltea/capstone-js', 'esbuild'],
      plugins: [englishZodMessagesOnly],
    }),
    bundleCommandLine(cliEntry),
    build({ ...ENTRY_BUNDLE, entryPoints: [join(dist, 'bin.js')], outfile: join(dist, 'bin.cjs') }),
  ]);
  const { extra, extraScript } = commandLine;
  const missing = onDemandData.filter((item) => !written.has(item.file)).map((item) => item.file);
  if (missing.length > 0) throw new Error(`the command line no longer reaches ${missing.join(', ')}`);
  // The executable imports nothing at run time but the stdio server.
  const foreign = Object.values(executable.metafile.outputs)
    .flatMap((output) => output.imports.map((edge) => edge.path))
    .filter((path) => path !== './mcpStdio.js' && !isBuiltin(path));
  if (foreign.length > 0)
    throw new Error(`dist/bin.cjs must import only built-ins and ./mcpStdio.js: ${foreign.join(', ')}`);
  // Its modules' import.meta is replaced by the script's URL: one that reads anything else of it would read nothing.
  const entryMeta = executable.warnings.filter((warning) => warning.text.includes('import.meta'));
  if (entryMeta.length > 0)
    throw new Error(
      `dist/bin.cjs reads import.meta beyond its url: ${entryMeta.map((w) => w.location?.file).join(', ')}`,
    );
  checkStartup(result.metafile);
  const kept = [commandLine, extra]
    .flatMap((built) => Object.values(built.metafile.outputs))
    .flatMap((output) => output.imports.filter((edge) => edge.kind === 'dynamic-import').map((edge) => edge.path));
  if (kept.length > 0) throw new Error(`the command line must not import() at run time: ${kept.join(', ')}`);
  // A module of the command line that reads import.meta for anything but its URL would read nothing.
  const lost = [...commandLine.warnings, ...extra.warnings].filter((warning) => warning.text.includes('import.meta'));
  if (lost.length > 0)
    throw new Error(
      `the command line reads import.meta beyond its url: ${lost.map((w) => w.location?.file).join(', ')}`,
    );
  // For a look at what went where (esbuild's analyzer reads it): REA_BUNDLE_METAFILE=/tmp/meta.json (the
  // command line's beside it, with .cli before the extension).
  if (process.env.REA_BUNDLE_METAFILE) {
    writeFileSync(process.env.REA_BUNDLE_METAFILE, JSON.stringify(result.metafile));
    writeFileSync(
      process.env.REA_BUNDLE_METAFILE.replace(/(\.json)?$/, '.cli$1'),
      JSON.stringify(commandLine.metafile),
    );
  }
  for (const file of result.outputFiles) writeFileSync(file.path, file.contents);
  const [script] = commandLine.outputFiles;
  writeFileSync(script.path, stampCommandLine(script.text));
  writeFileSync(extra.outputFiles[0].path, extraScript);
  const [entryScript] = executable.outputFiles;
  writeFileSync(entryScript.path, entryScript.contents, { mode: 0o755 });
  chmodSync(entryScript.path, 0o755);
  // The command line's ES module build is replaced by the script.
  // So are the executable's (dist/bin.cjs is what package.json names).
  for (const name of [
    'cli.js',
    'cli.js.map',
    'cli.d.ts',
    'cli.d.ts.map',
    'mcpStdio.js.map',
    'bin.js',
    'bin.js.map',
    'bin.d.ts',
    'bin.d.ts.map',
  ])
    rmSync(join(dist, name), { force: true });
  const modules = Object.keys(result.metafile.inputs).length;
  const chunks = result.outputFiles.filter((f) => /[\\/]chunk-[A-Z0-9]+\.js$/.test(f.path)).length;
  const kib = (result.outputFiles.reduce((sum, f) => sum + f.contents.length, 0) / 1024).toFixed(0);
  console.error(
    `rea: bundled the stdio fast path and the call path (${modules} modules, ${kib} KiB) into dist/mcpStdio.js, dist/mcpCalls.js and ${chunks} chunks, and the command line (${Object.keys(commandLine.metafile.inputs).length} modules, ${(script.contents.length / 1024).toFixed(0)} KiB) into dist/cli.cjs, its extra packages (${Object.keys(extra.metafile.inputs).length} modules, ${(extraScript.length / 1024).toFixed(0)} KiB) into dist/cli-extra.cjs`,
  );
}

/**
 * The command line's two scripts: dist/cli.cjs, every command's, without the {@link EXTRA_PACKAGES}; and
 * dist/cli-extra.cjs, those packages and what only they use, taking every module dist/cli.cjs also holds
 * from it. Built in three steps: the main script (to learn what it holds), the extra one (to learn what it
 * takes from the main one), the main one again with the registry of those modules.
 */
async function bundleCommandLine(cliEntry) {
  // The modules of extra packages the main script imports (dynamically): what the extra script exports.
  const entries = new Set();
  const options = (shared, extraStamp) => ({
    ...COMMAND_LINE_BUNDLE,
    entryPoints: [cliEntry],
    outfile: join(dist, 'cli.cjs'),
    external: ['@alexaltea/capstone-js', 'esbuild'],
    plugins: [
      deferExtra(shared, extraStamp, entries),
      englishZodMessagesOnly,
      builtinsRequired,
      lazyBuiltins,
      dataOnDemand,
    ],
  });
  const first = await build(options([], ''));
  const inCore = new Set(Object.keys(first.metafile.inputs).filter((key) => !/^[a-z-]+:/.test(key)));
  const extra = await build({
    ...COMMAND_LINE_BUNDLE,
    stdin: {
      // Each package's namespace when first asked for: evaluating one does not evaluate the others. Its
      // entry is named by file: a require() by name would look for a `require` export the packages lack.
      contents: `module.exports = {\n${[...entries]
        .sort()
        .map(
          (name) =>
            `  ${JSON.stringify(name)}: () => require(${JSON.stringify(fileURLToPath(import.meta.resolve(name)))}),`,
        )
        .join('\n')}\n};\n`,
      resolveDir: root,
      sourcefile: 'cli-extra.js',
      loader: 'js',
    },
    outfile: join(dist, 'cli-extra.cjs'),
    external: ['@alexaltea/capstone-js', 'esbuild'],
    // A dynamic import of a module of dist/cli.cjs is a require() of it there, as any other.
    supported: { 'dynamic-import': false },
    plugins: [sharedWithCore(inCore), englishZodMessagesOnly, builtinsRequired, lazyBuiltins, dataOnDemand],
  });
  const edges = Object.values(extra.metafile.inputs).flatMap((input) =>
    input.imports.filter((edge) => edge.external && edge.path.startsWith(SHARED_PREFIX)),
  );
  const formatOf = (key) => first.metafile.inputs[key.slice(SHARED_PREFIX.length)]?.format ?? 'esm';
  // A shared ES module is handed over as its namespace: what an import sees, not what a require() of a
  // CommonJS build of it would (no __esModule marker, no exports object of its own).
  const required = edges.filter((edge) => edge.kind === 'require-call' && formatOf(edge.path) === 'esm');
  if (required.length > 0)
    throw new Error(
      `dist/cli-extra.cjs require()s ES modules of dist/cli.cjs: ${required.map((e) => e.path).join(', ')}`,
    );
  const keys = [...new Set(edges.map((edge) => edge.path))].sort();
  const shared = keys.map((key) => {
    const file = key.slice(SHARED_PREFIX.length);
    return { key, file: resolve(process.cwd(), file), format: formatOf(key) };
  });
  const extraScript = stampCommandLine(extra.outputFiles[0].text);
  const commandLine = await build(options(shared, STAMP.exec(extraScript)[1]));
  // The registry names modules the main script holds: it adds none.
  const added = Object.keys(commandLine.metafile.inputs).filter((key) => !inCore.has(key) && !/^[a-z-]+:/.test(key));
  if (added.length > 0) throw new Error(`the extra registry added modules to dist/cli.cjs: ${added.join(', ')}`);
  // One zod, one @rea/evidence, @rea/provider-kit and @rea/schema: none of their modules may be copied into
  // dist/cli-extra.cjs (but the index modules by which the MCP SDK names zod, `zod/v4`, which only re-export
  // the shared ones).
  const copied = Object.keys(extra.metafile.inputs).filter(
    (key) =>
      /[\\/]zod[\\/]v4[\\/](core[\\/]|classic[\\/](?!index\.js$))/.test(key) ||
      /(^|[\\/])(evidence|provider-kit|schema)[\\/]dist[\\/]/.test(key),
  );
  if (copied.length > 0) throw new Error(`dist/cli-extra.cjs copies modules of dist/cli.cjs: ${copied.join(', ')}`);
  return Object.assign(commandLine, { extra, extraScript });
}

/**
 * Start-up of the stdio path loads dist/mcpStdio.js and the chunks it imports statically: none of them
 * may hold a module of the call path (those load on the first tool call, through dynamic imports).
 */
function checkStartup(metafile) {
  const outputs = metafile.outputs;
  const key = Object.keys(outputs).find((file) => resolve(process.cwd(), file) === entry);
  const seen = new Set();
  const pending = [key];
  while (pending.length > 0) {
    const file = pending.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    for (const edge of outputs[file].imports)
      if (edge.kind === 'import-statement' && !edge.external) pending.push(edge.path);
  }
  const inputs = [...seen].flatMap((file) => Object.keys(outputs[file].inputs));
  // Metafile inputs are relative to the working directory; compare real absolute paths.
  const absolute = inputs.map((file) => resolve(process.cwd(), file.replace(/^[a-z]+:/, '')));
  if (process.env.REA_BUNDLE_REPORT) console.error(absolute.map((file) => relative(root, file)).join('\n'));
  const forbidden = absolute.filter((file) => callPathModule(file) || file.endsWith('.ts'));
  if (forbidden.length > 0) throw new Error(`the stdio start-up must not load the call path: ${forbidden.join(', ')}`);
  const kib = ([...seen].reduce((sum, file) => sum + outputs[file].bytes, 0) / 1024).toFixed(0);
  console.error(`rea: the stdio start-up loads ${inputs.length} modules (${kib} KiB) from ${seen.size} files`);
}
