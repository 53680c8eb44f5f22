/**
 * rea-mcp — every export of this module is public API.
 *
 * The composition root: builds the default providers and the complete tool catalog and hands them to
 * the CLI and the MCP server. The `rea` executable is this package's bin.
 */
export { createCompositionTools, createDefaultProviders, createDefaultTools } from './defaults.js';
export { createReaHost, registrationCommand } from './host.js';
export { main } from './main.js';
export { renderHelpText } from './helpText.js';
export { HELP_TEXT } from './help.js';
