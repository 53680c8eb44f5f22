/**
 * @rea/provider-lldb — every export of this module is public API.
 *
 * Dynamic observation: process scenarios run under REA's ownership, their comparison, and native call
 * tracing through LLDB's Python API. Importing this module starts nothing.
 */
export { LLDB_CAPABILITIES, createLldbProvider, lldbTools } from './provider.js';
export { LLDB_PROVIDER, LLDB_PROVIDER_VERSION } from './version.js';
export { LLDB_SETTINGS, LLDB_STARTUP_TIMEOUT_MS } from './settings.js';
export { Screen } from './capture/screen.js';
