// The esbuild options both of rea's bundles share (scripts/postbuild.mjs). A test bundles a provider
// fixture with exactly these options to show how a provider finds its own files once bundled.

/** Gives the bundle a `require` for the CommonJS dependencies it contains. */
export const BANNER =
  "import { createRequire as __reaCreateRequire } from 'node:module';\nconst require = __reaCreateRequire(import.meta.url);";

/** What both bundles share: ESM for Node 20, written by this script, minified with names kept. */
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
  // Smaller source parses faster; names are kept (error and class names stay as written).
  minify: true,
  keepNames: true,
  legalComments: 'eof',
  metafile: true,
  logLevel: 'warning',
};
