import { z } from 'zod';
import { ReaError, throwIfAborted } from '@rea/evidence';
import type { Coverage, Limitation, Location } from '@rea/evidence';
import { NATIVE_PORT, RECORDS_EVIDENCE, alternativesFor, defineTool, portSession } from '@rea/provider-kit';
import type { Observation, ToolContext, ToolEffects } from '@rea/provider-kit';
import { parseAddress } from '../address.js';
import { isNativePort } from '../port.js';
import { nativeAvailability } from '../availability.js';
import type { NativeCapability, NativePort, Page, ProcedureInfo, ProcedureSummary } from '../port.js';

/** Effects of a native read: it records Evidence in the session and changes nothing else. */
export const READ_EFFECTS: ToolEffects = RECORDS_EVIDENCE;

/** The bound port, or `target_unavailable` when none is bound (availability normally catches this first). */
export function portOf(context: ToolContext): NativePort {
  const session = portSession(context.session.binding, NATIVE_PORT);
  if (!isNativePort(session)) {
    throw new ReaError('target_unavailable', 'No native target is open.', {
      remediation: 'Open a native binary with open_binary first.',
      details: { reason: 'no-target' },
    });
  }
  return session;
}

/**
 * The remedy for a missing capability, from what the host's registry declares: the other providers of
 * the native port that declare it (`ProviderBinding.peers`), or, when none does, installing one.
 */
function remedyFor(
  context: ToolContext,
  capability: NativeCapability,
): { remediation: string; alternatives: string[] } {
  const alternatives = alternativesFor(context.session.binding, capability);
  if (alternatives.length === 0) {
    return {
      remediation: `No native-analysis provider of this installation declares ${capability}; install one that does, then reopen the target with it.`,
      alternatives,
    };
  }
  const names = alternatives.map((id) => `"${id}"`);
  const choice = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
  return {
    remediation: `Reopen the target with a provider that declares ${capability}: provider_id ${choice}.`,
    alternatives,
  };
}

/** Throws `capability_unavailable` (with `capability`, `provider_id`, `alternatives`) unless the port declares `capability`. */
export function requireCapability(context: ToolContext, port: NativePort, capability: NativeCapability): void {
  if (port.capabilities.has(capability)) return;
  const provider = context.session.binding?.provider.id ?? null;
  const remedy = remedyFor(context, capability);
  throw new ReaError(
    'capability_unavailable',
    `The bound provider${provider ? ` ${provider}` : ''} does not provide ${capability.replace('_', ' ')}.`,
    {
      remediation: remedy.remediation,
      details: { capability, provider_id: provider, alternatives: remedy.alternatives },
    },
  );
}

/** What a native tool body returns; `observe` turns it into an Evidence observation. */
export interface NativeOutcome<R> {
  result: R;
  limitations?: Limitation[];
  coverage?: Coverage;
  locations?: Location[];
  confidence?: 'observed' | 'derived' | 'inferred';
  evidence_links?: string[];
}

/** Builds the observation for the session's target and binding. */
export function observe<R>(context: ToolContext, parameters: object, outcome: NativeOutcome<R>): Observation<R> {
  const binding = context.session.binding;
  const target = context.session.target;
  if (binding === null) throw new ReaError('target_unavailable', 'No native target is open.');
  return {
    subject: target ? { format: target.format, sha256: target.sha256, size: target.size } : null,
    provider: binding.provider,
    analysis_profile: binding.analysis_profile,
    parameters: JSON.parse(JSON.stringify(parameters)) as Observation<R>['parameters'],
    normalized_result: outcome.result,
    raw_result: null,
    confidence: outcome.confidence ?? 'observed',
    limitations: outcome.limitations ?? [],
    coverage: outcome.coverage ?? { status: 'complete', reasons: [] },
    locations: outcome.locations ?? [],
    evidence_links: outcome.evidence_links ?? [],
  };
}

/** Coverage of a paged read: partial with `next_offset` while rows remain. */
export function pageCoverage(page: Page<unknown>): Coverage {
  return page.next_offset === null
    ? { status: 'complete', reasons: [], next_offset: null }
    : {
        status: 'partial',
        reasons: ['more rows follow; call again with offset = next_offset'],
        next_offset: page.next_offset,
      };
}

/** A page with its offset, as the page schema expects. */
export function pageResult<T>(page: Page<T>, offset: number) {
  return { items: page.items, total: page.total, offset, next_offset: page.next_offset };
}

const ADDRESS_LIKE = /^(?:[A-Za-z0-9%._~-]+:)?0x[0-9a-f]+$/;

/** Resolves a procedure selector (entry address or exact name); `not_found` when neither matches. */
export async function resolveProcedure(
  port: NativePort,
  selector: string,
  signal: AbortSignal,
): Promise<ProcedureInfo> {
  throwIfAborted(signal, 'resolve');
  let address: string | null;
  if (ADDRESS_LIKE.test(selector)) {
    parseAddress(selector);
    address = selector;
  } else {
    address = await port.addressOf(selector, signal);
  }
  const info = address === null ? null : await port.procedure(address, signal);
  if (info === null) {
    throw new ReaError(
      'not_found',
      `No procedure ${ADDRESS_LIKE.test(selector) ? 'starts at' : 'is named'} ${selector}.`,
      {
        remediation:
          'List procedures with list_procedures or search_procedures, or use resolve_containing_procedure for an address inside one.',
        details: ADDRESS_LIKE.test(selector) ? { address: selector } : { name: selector },
      },
    );
  }
  return info;
}

/**
 * The procedure starting exactly at `address`, or null: from the port's summary when it has one (its
 * procedure table), else from {@link NativePort.procedure}.
 */
export async function procedureStartingAt(
  port: NativePort,
  address: string,
  signal: AbortSignal,
): Promise<ProcedureSummary | null> {
  return port.procedureSummary ? port.procedureSummary(address, signal) : port.procedure(address, signal);
}

/** Checks an address argument (throws `invalid_request` when malformed) and returns it. */
export function checkedAddress(text: string): string {
  parseAddress(text);
  return text;
}

/** An address location for Evidence. */
export function at(address: string): Location {
  return { kind: 'address', value: address };
}

/** The definition fields shared by every native tool. */
export const nativeBase = {
  effects: READ_EFFECTS,
  availability: nativeAvailability,
  produces: 'evidence' as const,
};

export { defineTool, nativeAvailability, z };
