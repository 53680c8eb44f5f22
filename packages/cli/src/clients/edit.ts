import { stringify as stringifyToml } from 'smol-toml';
import type { LaunchCommand } from '../host.js';
import { ENTRY_NAME } from './clients.js';
import type { ClientConfigState } from './configFile.js';
import { jsonScanText } from './jsonComments.js';
import { spliceJsonEntry } from './jsonSplice.js';
import { verifyConfigText } from './verify.js';

/** A client file's new text and whether everything but REA's entry kept its exact formatting. */
export interface RenderedConfig {
  text: string;
  /** `exact`: only REA's entry changed; `normalized`: the file was re-serialized (content preserved). */
  formatting: 'exact' | 'normalized';
  entry: Record<string, unknown>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** REA's entry after setup: the existing entry's other fields (env, …) kept, command and args set. */
export function desiredEntry(state: ClientConfigState, launch: LaunchCommand): Record<string, unknown> {
  const base = state.entry ?? (state.client.entryType !== null ? { type: state.client.entryType } : {});
  return { ...base, command: launch.command, args: [...launch.args] };
}

function jsonLayout(text: string): { indent: string | number; newline: boolean } {
  const body = text.trim();
  const m = /\n([ \t]+)\S/.exec(body);
  return {
    indent: body.includes('\n') ? (m?.[1] ?? 2) : body === '' ? 2 : 0,
    newline: text === '' || text.endsWith('\n'),
  };
}

function renderJson(state: ClientConfigState, entry: Record<string, unknown>): RenderedConfig {
  const text = state.text ?? '';
  const document = state.document ?? {};
  const key = state.client.serversKey;
  const servers = isObject(document[key]) ? document[key] : {};
  const next = { ...document, [key]: { ...servers, [ENTRY_NAME]: entry } };
  // Comments (for clients that accept them) are masked for finding where things are, and kept in the text.
  const scan = jsonScanText(state.client, text);
  const { indent, newline } = jsonLayout(scan);
  const serialize = (value: unknown): string => `${JSON.stringify(value, null, indent)}${newline ? '\n' : ''}`;
  // An empty file (or one holding only comments, which are kept) gets the document as REA writes it.
  if (scan.trim() === '') {
    return { text: `${text.trim() === '' ? '' : text}${serialize(next)}`, formatting: 'exact', entry };
  }
  // Splice only REA's member so that every other byte keeps its formatting; re-serialize otherwise.
  const spliced = spliceJsonEntry(text, key, ENTRY_NAME, entry, indent, scan);
  if (spliced !== null && verifyConfigText(state.client, state.document, spliced, entry)) {
    return { text: spliced, formatting: 'exact', entry };
  }
  return { text: serialize(next), formatting: serialize(document) === text ? 'exact' : 'normalized', entry };
}

/** The end (exclusive) of a TOML key/value line that may continue over several lines (arrays). */
function valueEnd(lines: readonly string[], start: number): number {
  let depth = 0;
  for (let i = start; i < lines.length; i += 1) {
    let quote: string | null = null;
    const line = lines[i]!;
    for (let j = i === start ? line.indexOf('=') + 1 : 0; j < line.length; j += 1) {
      const c = line[j]!;
      if (quote !== null) {
        if (c === '\\' && quote === '"') j += 1;
        else if (c === quote) quote = null;
      } else if (c === '"' || c === "'") quote = c;
      else if (c === '#') break;
      else if (c === '[' || c === '{') depth += 1;
      else if (c === ']' || c === '}') depth -= 1;
    }
    if (depth <= 0) return i + 1;
  }
  return lines.length;
}

function renderToml(state: ClientConfigState, entry: Record<string, unknown>): RenderedConfig {
  const text = state.text ?? '';
  const assignment = stringifyToml({ command: entry['command'], args: entry['args'] }).trimEnd();
  const lines = text.split('\n');
  const header = /^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*(?:rea|"rea"|'rea')[ \t]*\][ \t]*(#.*)?$/;
  const start = lines.findIndex((l) => header.test(l));
  if (start >= 0) {
    let end = lines.findIndex((l, i) => i > start && /^[ \t]*\[/.test(l));
    if (end < 0) end = lines.length;
    const kept: string[] = [];
    for (let i = start + 1; i < end; i += 1) {
      if (/^[ \t]*(command|args|"command"|"args")[ \t]*=/.test(lines[i]!)) {
        i = valueEnd(lines, i) - 1;
        continue;
      }
      kept.push(lines[i]!);
    }
    const out = [...lines.slice(0, start + 1), ...assignment.split('\n'), ...kept, ...lines.slice(end)].join('\n');
    if (verifyConfigText(state.client, state.document, out, entry)) return { text: out, formatting: 'exact', entry };
  } else if (state.entry === null) {
    const sep = text === '' ? '' : text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
    const out = `${text}${sep}[mcp_servers.${ENTRY_NAME}]\n${assignment}\n`;
    if (verifyConfigText(state.client, state.document, out, entry)) return { text: out, formatting: 'exact', entry };
  }
  // REA's entry is written some other way (inline table, dotted keys), or a textual edit would not
  // parse back to the same settings: re-serialize the whole document (content kept, comments lost).
  const document = state.document ?? {};
  const servers = isObject(document['mcp_servers']) ? document['mcp_servers'] : {};
  const next = { ...document, mcp_servers: { ...servers, [ENTRY_NAME]: entry } };
  return { text: `${stringifyToml(next)}\n`, formatting: 'normalized', entry };
}

/** Renders the client file with REA's entry set to `launch`, preserving everything else it can. */
export function renderUpdatedConfig(state: ClientConfigState, launch: LaunchCommand): RenderedConfig {
  const entry = desiredEntry(state, launch);
  return state.client.format === 'json' ? renderJson(state, entry) : renderToml(state, entry);
}
