/**
 * The command-line path as one module for the executable. The build bundles this file (with code
 * splitting, so commands, tools and providers still load only when used) into dist/cli.js and its
 * chunks: `rea <command>` then reads a few files instead of several hundred. Library users import
 * `main` from the package entry, which stays unbundled.
 */
export { main } from './main.js';
