/**
 * The command-line path as one module for the executable. The build bundles this file into a CommonJS
 * script, dist/cli.cjs, and the packages only some commands import into a second, dist/cli-extra.cjs,
 * which dist/commandLine.js compile with V8's cached code of earlier runs (commands, tools and providers
 * the bundle reaches through dynamic imports are still evaluated only when used). Library users import
 * `main` from the package entry, which stays unbundled.
 */
export { main } from './main.js';
