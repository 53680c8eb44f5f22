import { ReaError } from '@rea/evidence';

/** What a tool may do. MCP annotations are derived from these flags and never written by hand. */
export interface ToolEffects {
  /** Changes nothing: not the session, not the file system, not a device. */
  readOnly: boolean;
  /** Changes session state (records Evidence, opens or closes a target). */
  mutatesSession: boolean;
  /** Writes files (exports, extraction into a fresh directory, snapshots). */
  writesFilesystem: boolean;
  /** Starts a process (an engine, hdiutil, a target application). */
  launchesProcess: boolean;
  /** Runs or drives code REA does not own (process, LLDB, Electron, browser scenarios). */
  executesForeignCode: boolean;
  /** Changes an attached device (push, install, uninstall, start, stop). */
  mutatesDevice: boolean;
  /** May discard data: overwrite or clear analyst metadata, replace files, drop session state. */
  mayDiscardData: boolean;
  /** Calling again with the same input has no further effect. */
  idempotent: boolean;
  /** Interacts with an open world (network endpoints, live pages, devices) rather than fixed inputs. */
  openWorld: boolean;
}

/** The MCP tool annotations (hints, not authorization). */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export const EFFECT_FLAGS = [
  'readOnly',
  'mutatesSession',
  'writesFilesystem',
  'launchesProcess',
  'executesForeignCode',
  'mutatesDevice',
  'mayDiscardData',
  'idempotent',
  'openWorld',
] as const satisfies ReadonlyArray<keyof ToolEffects>;

/**
 * Checks that `effects` names all nine flags as booleans and that they agree with each other.
 * Throws `invalid_request` naming the tool and the contradiction.
 */
export function validateEffects(tool: string, effects: ToolEffects): void {
  const record = effects as unknown as Record<string, unknown>;
  const missing = EFFECT_FLAGS.filter((flag) => typeof record[flag] !== 'boolean');
  const unknown = Object.keys(record).filter((key) => !(EFFECT_FLAGS as readonly string[]).includes(key));
  const problems: string[] = [];
  if (missing.length > 0) problems.push(`missing or non-boolean flags: ${missing.join(', ')}`);
  if (unknown.length > 0) problems.push(`unknown flags: ${unknown.join(', ')}`);
  if (effects.readOnly) {
    for (const flag of [
      'mutatesSession',
      'writesFilesystem',
      'mayDiscardData',
      'mutatesDevice',
      'executesForeignCode',
    ] as const) {
      if (effects[flag]) problems.push(`readOnly contradicts ${flag}`);
    }
  }
  if (effects.executesForeignCode && !effects.launchesProcess && !effects.openWorld) {
    problems.push('executesForeignCode needs launchesProcess or openWorld (foreign code runs somewhere)');
  }
  if (problems.length > 0) {
    throw new ReaError('invalid_request', `Tool ${tool} declares inconsistent effects: ${problems.join('; ')}.`, {
      details: { reason: 'invalid-effects', tool, problems },
    });
  }
}

/** Derives MCP annotations from effects: destructive = mayDiscardData ∨ executesForeignCode ∨ mutatesDevice. */
export function deriveAnnotations(effects: ToolEffects): ToolAnnotations {
  return {
    readOnlyHint: effects.readOnly,
    destructiveHint: effects.mayDiscardData || effects.executesForeignCode || effects.mutatesDevice,
    idempotentHint: effects.idempotent,
    openWorldHint: effects.openWorld,
  };
}

/** Every effect flag false: the base to spread and override when declaring a tool's effects. */
export const NO_EFFECTS: Readonly<ToolEffects> = Object.freeze({
  readOnly: false,
  mutatesSession: false,
  writesFilesystem: false,
  launchesProcess: false,
  executesForeignCode: false,
  mutatesDevice: false,
  mayDiscardData: false,
  idempotent: false,
  openWorld: false,
});

/**
 * The effects of an analysis that reads its input and records Evidence in the session, changing
 * nothing else (not read-only, because recording Evidence mutates the session; idempotent).
 */
export const RECORDS_EVIDENCE: Readonly<ToolEffects> = Object.freeze({
  ...NO_EFFECTS,
  mutatesSession: true,
  idempotent: true,
});
