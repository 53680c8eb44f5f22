/**
 * @rea/cli — every export of this module is public API.
 *
 * REA's command line: every tool contract as a generated kebab-case command, the hand-written
 * commands (analyze, catalog, doctor, inspect-evidence-bundle, mcp, setup), one error boundary with
 * a documented exit-code table, progress on stderr and signal-driven cancellation. It never imports a
 * provider: the composition root hands it a {@link CliHost}.
 */
export { renderHelp, runCli } from './program.js';
export { createProcessIo } from './processIo.js';
export { EXIT_CODES, exitCodeFor } from './exitCodes.js';
export { RESERVED_FLAGS, commandName, commandSpecOf } from './commandSpec.js';
export type { CommandSpec, FlagSpec, FlagType } from './commandSpec.js';
export { BUILTIN_COMMANDS, llmsManifest } from './manifest.js';
export { locateJsonError } from './jsonText.js';
export type { TextPosition } from './jsonText.js';
export type { BuiltinCommandInfo } from './manifest.js';
export { CLIENTS, CLIENT_IDS, ENTRY_NAME, clientById } from './clients/clients.js';
export type { ClientDefinition, ClientId } from './clients/clients.js';
export type { RegistrationStatus } from './clients/configFile.js';
export type { ClientReport, DoctorReport } from './commands/doctor.js';
export type { SetupPlanItem } from './commands/setup.js';
export type { AnalyzeReport, AnalyzeStep } from './commands/analyze.js';
export type { DetectedTarget, TargetKind } from './commands/detect.js';
export type { CliHost, CliIo, CliPackageInfo, LaunchCommand, ProviderStatus, ServeRequest } from './host.js';
export type { SignalSource } from './signals.js';
export type { TextStream } from './progress.js';
