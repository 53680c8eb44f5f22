/**
 * @rea/example-scripted-engine-provider — every export of this module is public API. A deep provider on
 * a stand-in engine process, with its engine seam in src/engine.ts.
 */
export { createScriptedEngineProvider } from './provider.js';
export type { ScriptedSession } from './provider.js';
