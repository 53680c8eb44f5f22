// Retained Evidence as MCP resources: every record of a connection's ledger is `rea://evidence/<id>`,
// listed by resources/list, described by one template, and read by resources/read, so a client can
// fetch a record again (or one too large for a tool result's budget elsewhere) without rerunning it.
import { capEcho } from '@rea/evidence';
import type { EvidenceRecord, SessionLedger } from '@rea/evidence';
import { INVALID_PARAMS, RpcError } from './frames.js';

/** The URI scheme and path of retained Evidence. */
export const EVIDENCE_URI_PREFIX = 'rea://evidence/';

/** The resource template of retained Evidence. */
export const EVIDENCE_TEMPLATE = {
  uriTemplate: `${EVIDENCE_URI_PREFIX}{evidence_id}`,
  name: 'evidence',
  title: 'Retained Evidence record',
  description:
    'One Evidence record retained by this connection, as canonical JSON. evidence_id is the ev_… id a tool ' +
    'result returned (its resource_link names the URI). Records belong to this connection and are cleared by close_binary.',
  mimeType: 'application/json',
} as const;

/**
 * The error code of a resources/read miss: invalid params, with `data.uri` alone (MCP 2025-11-25; the
 * SDK sends the older -32002 as this code too, and its clients read this shape as "resource not found").
 */
export const RESOURCE_NOT_FOUND = INVALID_PARAMS;

const PAGE = 200;

/** The resource URI of a record. */
export function evidenceUri(evidenceId: string): string {
  return `${EVIDENCE_URI_PREFIX}${evidenceId}`;
}

/** The `resource_link` content item that points at a retained record. */
export function evidenceLink(record: EvidenceRecord): Record<string, unknown> {
  return {
    type: 'resource_link',
    uri: evidenceUri(record.evidence_id),
    name: record.evidence_id,
    title: `${record.operation} Evidence`,
    description: 'The retained Evidence record of this result; read it with resources/read.',
    mimeType: 'application/json',
  };
}

function paramsOf(params: unknown): Record<string, unknown> {
  return typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {};
}

/** Answers resources/list: the retained records, oldest first, a page of 200 at a time. */
export function listEvidence(ledger: SessionLedger | null, params: unknown): Record<string, unknown> {
  const cursor = paramsOf(params)['cursor'];
  const offset = cursor === undefined ? 0 : Number(cursor);
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new RpcError(
      INVALID_PARAMS,
      `Invalid params for resources/list: unknown cursor ${capEcho(String(cursor), 64)}.`,
    );
  }
  const records = ledger?.list() ?? [];
  const page = records.slice(offset, offset + PAGE);
  return {
    resources: page.map((record) => {
      const { type: _type, ...link } = evidenceLink(record);
      return link;
    }),
    ...(offset + PAGE < records.length ? { nextCursor: String(offset + PAGE) } : {}),
  };
}

/** The evidence id a resources/read names; a URI of another shape is -32602. */
export function evidenceIdOf(params: unknown): { uri: string; evidenceId: string } {
  const uri = paramsOf(params)['uri'];
  if (typeof uri !== 'string' || !uri.startsWith(EVIDENCE_URI_PREFIX)) {
    const shown = typeof uri === 'string' ? capEcho(uri, 200) : 'missing';
    throw new RpcError(
      INVALID_PARAMS,
      `Invalid params for resources/read: uri ${shown} is not ${EVIDENCE_TEMPLATE.uriTemplate}.`,
    );
  }
  return { uri, evidenceId: uri.slice(EVIDENCE_URI_PREFIX.length) };
}

/** The answer for a record this connection does not hold: its message names the id. */
export function missingEvidence(uri: string, evidenceId: string): RpcError {
  const shown = capEcho(evidenceId, 200);
  return new RpcError(
    RESOURCE_NOT_FOUND,
    `Resource not found: this connection retains no Evidence ${shown}. Repeat its producer, or import a bundle that holds it.`,
    { uri: capEcho(uri, 256) },
  );
}
