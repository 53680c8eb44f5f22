import { isDeepStrictEqual } from 'node:util';
import { parse as parseToml } from 'smol-toml';
import { ENTRY_NAME } from './clients.js';
import type { ClientDefinition } from './clients.js';
import { jsonScanText } from './jsonComments.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseDocument(client: ClientDefinition, text: string): Record<string, unknown> | null {
  try {
    const json = client.format === 'json' ? jsonScanText(client, text) : '';
    const value = client.format === 'json' ? (json.trim() === '' ? {} : JSON.parse(json)) : parseToml(text);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

/** A plain-JSON copy (TOML tables have null prototypes; dates and big integers become strings). */
function plain(value: unknown): unknown {
  if (value === undefined) return undefined;
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as unknown;
}

function withoutEntry(client: ClientDefinition, document: Record<string, unknown>): unknown {
  const servers = document[client.serversKey];
  if (!isObject(servers)) return document;
  const { [ENTRY_NAME]: _entry, ...rest } = servers;
  const copy: Record<string, unknown> = { ...document, [client.serversKey]: rest };
  if (Object.keys(rest).length === 0) delete copy[client.serversKey];
  return plain(copy);
}

/**
 * True when `text` parses, holds exactly `entry` as REA's entry, and every other entry and setting of
 * `before` is unchanged. Used before writing (to choose a rendering) and after (to read back).
 */
export function verifyConfigText(
  client: ClientDefinition,
  before: Record<string, unknown> | null,
  text: string,
  entry: Record<string, unknown>,
): boolean {
  const after = parseDocument(client, text);
  if (after === null) return false;
  const servers = after[client.serversKey];
  if (!isObject(servers) || !isDeepStrictEqual(plain(servers[ENTRY_NAME]), plain(entry))) return false;
  return isDeepStrictEqual(withoutEntry(client, before ?? {}), withoutEntry(client, after));
}
