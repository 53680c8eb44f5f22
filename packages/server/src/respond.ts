import {
  ReaError,
  canonicalJson,
  canonicalJsonAsync,
  normalizeError,
  sealedByteSize,
  toDiagnostic,
} from '@rea/evidence';
import type { Diagnostic, EvidenceRecord, JsonObject } from '@rea/evidence';
import type { AnyToolContract, ToolOutcome } from '@rea/provider-kit';
import { ENVELOPE_RESERVE_BYTES, outputCheckedByExecution, validateCooperatively } from '@rea/provider-kit';
import { contentBudget, costOfCanonicalTextAsync, measureResponse, measureResponseAsync } from './budget.js';
import { rememberAnsweredText } from './answeredText.js';
import { LARGE_FRAME_TEXT } from './largeFrames.js';
import { evidenceLink } from './resources.js';
import { DEFAULT_VIEW_LIMIT } from '@rea/evidence';

/**
 * A record sealed in this process whose response (text and structured content) is at most this many
 * bytes is encoded at once, without measuring it first or giving the event loop turns.
 */
const SMALL_RECORD_BYTES = 768 * 1024;

/** The MCP tool result shape this server produces. */
export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string } | ({ type: 'resource_link'; uri: string } & Record<string, unknown>)>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A ready-to-call follow-up for oversized Evidence whose text a view can page. */
export function continuationFor(record: EvidenceRecord): JsonObject | null {
  const result = record.normalized_result;
  if (record.operation !== 'analyze_function') return null;
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return null;
  if (typeof result['pseudocode'] !== 'string') return null;
  return {
    name: 'inspect_analysis_view',
    arguments: {
      source: { kind: 'retained-evidence', evidence_id: record.evidence_id },
      view: 'page',
      collection: 'pseudocode',
      offset: 0,
      limit: DEFAULT_VIEW_LIMIT,
    },
  };
}

function transportConstraint(
  operation: string,
  maxResponseBytes: number,
  observed: number,
  record: EvidenceRecord | null,
): ReaError {
  const reported: JsonObject = {
    max_response_bytes: maxResponseBytes,
    envelope_reserve_bytes: ENVELOPE_RESERVE_BYTES,
    evidence_reference: record ? { kind: 'retained-evidence', evidence_id: record.evidence_id } : null,
  };
  const continuation = record ? continuationFor(record) : null;
  if (continuation) reported['continuation'] = continuation;
  // What the call left on disk (an extraction's directory) stays findable from the refusal.
  const outputDirectory = record?.local?.['output_directory'];
  return new ReaError(
    'resource_constraint',
    record
      ? `The result of ${operation} does not fit one response; it is retained as ${record.evidence_id}.`
      : `The result of ${operation} does not fit one response.`,
    {
      operation,
      remediation: record
        ? 'Call inspect_analysis_view with the evidence_reference (or the continuation), or export_evidence_bundle.'
        : 'Use export_evidence_bundle, or narrow the request (get_evidence_bundle with detail "summary").',
      details: {
        resource: 'transport',
        limit: contentBudget(maxResponseBytes, ENVELOPE_RESERVE_BYTES),
        observed,
        reported_limits: reported,
        ...(typeof outputDirectory === 'string' ? { output_directory: outputDirectory } : {}),
      },
    },
  );
}

/**
 * Validates a successful value against the tool's advertised output schema, its long tables a batch at
 * a time with turns of the event loop (`cancelled` when `signal` is aborted meanwhile); a violation is
 * `internal`. A contract made by `defineTool` was held to that schema by its execution already (the
 * result validated a batch at a time, the Evidence envelope when sealed): it is not validated again.
 */
export async function checkOutput(contract: AnyToolContract, value: unknown, signal?: AbortSignal): Promise<void> {
  if (outputCheckedByExecution(contract)) return;
  const issues = await validateCooperatively(contract.output, value, signal);
  if (issues !== null) {
    throw new ReaError('internal', `${contract.name} produced a result that violates its advertised output schema.`, {
      operation: contract.name,
      details: {
        issues: issues
          .slice(0, 20)
          .map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message })),
      },
    });
  }
}

/** A successful outcome encoded: the result to send, or the refusal to send once the record is retained. */
export type EncodedSuccess = { fits: true; result: ToolResult } | { fits: false; refusal: ReaError };

/**
 * Encodes a successful (already validated) outcome: measured against the budget before any string
 * longer than the budget is built, then sent as structured content plus the same JSON as text. An
 * oversized outcome is refused with `resource_constraint` naming the record by reference: the caller
 * retains the record before it answers with the refusal. Measuring and writing the text take turns of
 * the event loop for a large value (`cancelled`, `details.phase: "publication"`, when `signal` is
 * aborted meanwhile), so that other requests are served meanwhile. A record sealed in this process has
 * its size known from sealing: a small one (see {@link SMALL_RECORD_BYTES}) is not measured and its
 * text is written at once; a larger one is refused at once when that size alone cannot fit, and is
 * otherwise measured by counting its written text (see costOfCanonicalTextAsync), not by a walk of its
 * value.
 */
export async function encodeSuccess(
  operation: string,
  outcome: ToolOutcome,
  maxResponseBytes: number,
  signal?: AbortSignal,
): Promise<EncodedSuccess> {
  const value = outcome.kind === 'evidence' ? outcome.record : outcome.value;
  const budget = contentBudget(maxResponseBytes, ENVELOPE_RESERVE_BYTES);
  let text: string;
  const refuse = (observed: number): EncodedSuccess => ({
    fits: false,
    refusal: transportConstraint(
      operation,
      maxResponseBytes,
      observed,
      outcome.kind === 'evidence' ? outcome.record : null,
    ),
  });
  const known = sealedByteSize(value);
  if (known !== null && 3 * known + 2 <= Math.min(budget, SMALL_RECORD_BYTES)) {
    // A small record sealed here: its text (at most twice its JSON, escaped) and its structured content
    // fit the budget without measuring, and its text is written at once.
    text = canonicalJson(value);
  } else if (known !== null) {
    // Sealed here, so its canonical JSON is known to be `known` bytes: when the structured content and
    // the text (at least as long) cannot fit, it is refused at once; otherwise its text, no longer than
    // the budget, is written and then counted exactly, instead of the value being walked once to
    // measure it and again to write it.
    if (2 * known + 2 > budget) return refuse(2 * known + 2);
    text = await canonicalJsonAsync(value, { signal, phase: 'publication' });
    const cost = await costOfCanonicalTextAsync(text, known, budget, true, signal);
    if (!cost.fits) return refuse(cost.total);
  } else {
    const cost = await measureResponseAsync(value, budget, true, signal);
    if (!cost.fits) return refuse(cost.total);
    text = await canonicalJsonAsync(value, { signal, phase: 'publication' });
  }
  // The writer of a large frame puts this text where the record goes as structured content (see
  // ./answeredText.ts). Only for a sealed record, which nothing changes once sealed, and only when its
  // frame will be written in slices, which takes the text.
  if (outcome.kind === 'evidence' && text.length > LARGE_FRAME_TEXT) rememberAnsweredText(outcome.record, text);
  // Retained Evidence is also linked as a resource, so a client can read the record again later
  // (resources/read) without rerunning the tool. The link is a few hundred bytes of the envelope reserve.
  const link =
    outcome.kind === 'evidence' ? [evidenceLink(outcome.record) as { type: 'resource_link'; uri: string }] : [];
  return {
    fits: true,
    result: { content: [{ type: 'text', text }, ...link], structuredContent: value as Record<string, unknown> },
  };
}

/** The first MCP protocol version whose tool results may hold `resource_link` content. */
export const RESOURCE_LINKS_SINCE = '2025-06-18';

/**
 * `result` as a client of protocol `version` can read it: before {@link RESOURCE_LINKS_SINCE} a content
 * item of type `resource_link` is not in the protocol, and a client that checks content types strictly
 * would refuse the whole result, so the link is left out (the record is still retained and readable
 * with resources/read). Protocol versions are dates, compared as text.
 */
export function forProtocol(result: ToolResult, version: string | undefined): ToolResult {
  if (version === undefined || version >= RESOURCE_LINKS_SINCE) return result;
  return { ...result, content: result.content.filter((item) => item.type !== 'resource_link') };
}

/**
 * Encodes a failure: `isError`, the canonical `{ "error": … }` JSON as text, no structured content.
 * A diagnostic too large for the budget is handed to `retain` and replaced by a bounded one that
 * references the retained record (or says why retention failed).
 */
export function encodeFailure(
  error: unknown,
  operation: string,
  maxResponseBytes: number,
  retain: (diagnostic: Diagnostic) => EvidenceRecord,
): ToolResult {
  let diagnostic = toDiagnostic(error, operation);
  const cost = measureResponse(diagnostic, contentBudget(maxResponseBytes, ENVELOPE_RESERVE_BYTES), false);
  if (!cost.fits) {
    let reference: JsonObject;
    try {
      const record = retain(diagnostic);
      reference = { evidence_reference: { kind: 'retained-evidence', evidence_id: record.evidence_id } };
    } catch (retention) {
      reference = {
        evidence_reference: null,
        retention_failure: normalizeError(retention).message,
      };
    }
    diagnostic = {
      error: {
        ...diagnostic.error,
        message: diagnostic.error.message.slice(0, 4096),
        remediation: diagnostic.error.remediation.slice(0, 4096),
        details: {
          resource: 'transport',
          truncated: true,
          observed: cost.total,
          reported_limits: {
            max_response_bytes: maxResponseBytes,
            envelope_reserve_bytes: ENVELOPE_RESERVE_BYTES,
            ...reference,
          },
        },
      },
    };
  }
  return { content: [{ type: 'text', text: canonicalJson(diagnostic) }], isError: true };
}
