/**
 * @rea/test-helpers — fixtures and fixture builders shared by the test suites (private).
 */
export { writeAsar } from './asar.js';
export { serverTempDir, sharedTestdata, withTempDir } from './files.js';
export type { ServerTempDir } from './files.js';
export { skipUnless } from './gate.js';
export { compileFixture, findTool, toolsMissing } from './compile.js';
export type { CompileRequest } from './compile.js';
export { processAlive, quietToolContext } from './processes.js';
export {
  STANDIN_ENGINE,
  createStandinGhidra,
  createStandinHopper,
  setStandinScenario,
  createStandinLinuxHopper,
  standinProcesses,
} from './standin.js';
export type { StandinScenario } from './standin.js';
export { runNativeToolsOnRealEngine } from './realEngine.js';
export type { RealEngineRun } from './realEngine.js';
export { bridgeOpenOptions, standinWorkspace } from './bridge.js';
export { turnProbe } from './turns.js';
export { staticImportGraph } from './staticImports.js';
