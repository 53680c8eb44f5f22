import { readFile } from 'node:fs/promises';
import { TomlError, parse as parseToml } from 'smol-toml';
import { locateJsonError, positionAt } from '../jsonText.js';
import type { TextPosition } from '../jsonText.js';
import type { LaunchCommand } from '../host.js';
import { ENTRY_NAME } from './clients.js';
import type { ClientDefinition } from './clients.js';
import { jsonScanText } from './jsonComments.js';

/** How a client's registration of REA compares with the registration REA documents. */
export type RegistrationStatus = 'aligned' | 'stale' | 'missing' | 'invalid';

/** One client configuration file as read (never written) by doctor and setup. */
export interface ClientConfigState {
  client: ClientDefinition;
  file: string;
  /** The file's text, or null when it does not exist or cannot be read. */
  text: string | null;
  /** The parsed document when the file exists and parses to an object. */
  document: Record<string, unknown> | null;
  /** REA's entry when present and well-formed. */
  entry: Record<string, unknown> | null;
  status: RegistrationStatus;
  /** file-absent | entry-absent | unreadable | unparseable | wrong-shape | command-differs | matches */
  reason: string;
  message: string;
  /** Where the problem is (invalid files), or where REA's entry is. */
  position: TextPosition | null;
  /** JSON-pointer-like path of a wrong-shaped value, e.g. `/mcpServers/rea/args`. */
  pointer: string | null;
  /** The registered command vector, when there is one. */
  registered: LaunchCommand | null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Best-effort position of a key path in a JSON or TOML text (first occurrence in order). */
function locate(state: { text: string; client: ClientDefinition }, keys: readonly string[]): TextPosition | null {
  const { client } = state;
  const text = client.format === 'json' ? jsonScanText(client, state.text) : state.text;
  if (client.format === 'toml') {
    const header = new RegExp(`^[ \\t]*\\[[ \\t]*${keys.slice(0, 2).join('[ \\t]*\\.[ \\t]*')}[ \\t]*\\]`, 'm').exec(
      text,
    );
    return header ? positionAt(text, header.index) : null;
  }
  let from = 0;
  let found = -1;
  for (const key of keys) {
    found = text.indexOf(JSON.stringify(key), from);
    if (found < 0) return null;
    from = found + key.length + 2;
  }
  return found < 0 ? null : positionAt(text, found);
}

function parseText(
  client: ClientDefinition,
  text: string,
): { value: unknown } | { error: string; position: TextPosition } {
  if (client.format === 'json') {
    // Read the file as the client does: with comments for a client that accepts them.
    const json = jsonScanText(client, text);
    if (json.trim() === '') return { value: {} };
    const located = locateJsonError(json);
    if (located !== null) return { error: `expected ${located.expected}`, position: located.position };
    return { value: JSON.parse(json) as unknown };
  }
  try {
    return { value: parseToml(text) };
  } catch (error) {
    if (error instanceof TomlError) {
      const firstLine = error.message.split('\n')[0] ?? 'invalid TOML';
      const lines = text.split('\n');
      let offset = 0;
      for (let i = 0; i < error.line - 1 && i < lines.length; i += 1) offset += lines[i]!.length + 1;
      return {
        error: firstLine.replace(/^Invalid TOML document:\s*/, ''),
        position: { offset: offset + error.column - 1, line: error.line, column: error.column },
      };
    }
    return { error: 'invalid TOML', position: positionAt(text, 0) };
  }
}

function sameVector(a: LaunchCommand, b: LaunchCommand): boolean {
  return a.command === b.command && a.args.length === b.args.length && a.args.every((x, i) => x === b.args[i]);
}

/**
 * Reads and classifies one client's configuration file against the expected launch command:
 * `aligned` (same command vector), `stale` (a different vector), `missing` (no file or no entry) or
 * `invalid` (unreadable, unparseable — with line and column — or wrong shape, with the pointer).
 */
export async function readClientConfig(
  client: ClientDefinition,
  file: string,
  expected: LaunchCommand,
): Promise<ClientConfigState> {
  const base = { client, file, document: null, entry: null, position: null, pointer: null, registered: null };
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return { ...base, text: null, status: 'missing', reason: 'file-absent', message: 'the file does not exist' };
    }
    return {
      ...base,
      text: null,
      status: 'invalid',
      reason: 'unreadable',
      message: `the file cannot be read (${code})`,
    };
  }
  const parsed = parseText(client, text);
  if ('error' in parsed) {
    return {
      ...base,
      text,
      status: 'invalid',
      reason: 'unparseable',
      message: `not valid ${client.format === 'toml' ? 'TOML' : client.comments ? 'JSON (with comments)' : 'JSON'}: ${parsed.error} at line ${parsed.position.line}, column ${parsed.position.column}`,
      position: parsed.position,
    };
  }
  const wrong = (keys: string[], message: string, document: Record<string, unknown> | null): ClientConfigState => ({
    ...base,
    text,
    document,
    status: 'invalid',
    reason: 'wrong-shape',
    message,
    pointer: `/${keys.join('/')}`,
    position: locate({ text, client }, keys),
  });
  if (!isObject(parsed.value))
    return wrong([], `the top level must be ${client.format === 'json' ? 'an object' : 'a table'}`, null);
  const document = parsed.value;
  const servers = document[client.serversKey];
  if (servers === undefined) {
    return {
      ...base,
      text,
      document,
      status: 'missing',
      reason: 'entry-absent',
      message: `no ${client.serversKey} table`,
    };
  }
  if (!isObject(servers)) return wrong([client.serversKey], `${client.serversKey} must be an object`, document);
  const entry = servers[ENTRY_NAME];
  if (entry === undefined) {
    return { ...base, text, document, status: 'missing', reason: 'entry-absent', message: `no "${ENTRY_NAME}" entry` };
  }
  const at = [client.serversKey, ENTRY_NAME];
  if (!isObject(entry)) return wrong(at, `the "${ENTRY_NAME}" entry must be an object`, document);
  if (typeof entry['command'] !== 'string') return wrong([...at, 'command'], 'command must be a string', document);
  const args = entry['args'] ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) {
    return wrong([...at, 'args'], 'args must be an array of strings', document);
  }
  const registered = { command: entry['command'], args: args as string[] };
  const aligned = sameVector(registered, expected);
  return {
    ...base,
    text,
    document,
    entry,
    registered,
    position: locate({ text, client }, at),
    status: aligned ? 'aligned' : 'stale',
    reason: aligned ? 'matches' : 'command-differs',
    message: aligned
      ? 'registered as REA documents it'
      : `registered as ${[registered.command, ...registered.args].join(' ')}; REA's registration is ${[expected.command, ...expected.args].join(' ')}`,
  };
}
