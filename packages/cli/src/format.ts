import type { Diagnostic, EvidenceRecord } from '@rea/evidence';
import { androidPackageFacts } from './androidFacts.js';
import { escapeTerminalValue } from './terminalText.js';

/** Output format of a command: `human` (default) or `json`. */
export type OutputFormat = 'human' | 'json';

const MAX_LINES = 60;

function scalar(value: unknown): string {
  // An empty string is shown as one: blank, it would read as a value left out.
  if (value === '') return '""';
  if (typeof value === 'string') return value.length > 120 ? `${value.slice(0, 117)}…` : value;
  if (value === null) return 'null';
  return String(value);
}

/** A short array of scalars on one line (`[public, final]`), or null when it would not be short. */
function shortList(value: unknown[]): string | null {
  if (value.length > 8 || !value.every((v) => v === null || typeof v !== 'object')) return null;
  const text = `[${value.map(scalar).join(', ')}]`;
  return text.length <= 100 ? text : null;
}

/** `n items`, or `1 item`. */
const items = (n: number): string => `${n} item${n === 1 ? '' : 's'}`;

/** `n fields`, or `1 field`. */
const fields = (n: number): string => `${n} field${n === 1 ? '' : 's'}`;

/** The most rows a table of the outline shows; the rest are counted (`--format json` has them all). */
const MAX_ROWS = 500;

/** The most columns a list of objects may have to be shown as a table. */
const MAX_COLUMNS = 8;

/** The columns of a list of at least two flat objects (scalar fields, short lists), or null. */
function columnsOf(value: unknown[]): string[] | null {
  if (value.length < 2) return null;
  const columns: string[] = [];
  for (const item of value) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return null;
    for (const [key, child] of Object.entries(item as Record<string, unknown>)) {
      if (child !== null && typeof child === 'object' && !(Array.isArray(child) && shortList(child) !== null))
        return null;
      if (!columns.includes(key)) {
        if (columns.length === MAX_COLUMNS) return null;
        columns.push(key);
      }
    }
  }
  return columns;
}

/** A table of a list of flat objects: a header row, then a row an item (missing fields blank). */
function table(value: Array<Record<string, unknown>>, columns: string[], indent: string): string[] {
  const cell = (v: unknown): string =>
    v === undefined
      ? ''
      : Array.isArray(v)
        ? shortList(v)!
        : typeof v === 'string' && v.length > 60
          ? `${v.slice(0, 59)}…`
          : scalar(v);
  const rows = value.slice(0, MAX_ROWS).map((item) => columns.map((c) => cell(item[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    `${indent}${cells.map((v, i) => v.padEnd(widths[i]!)).join('  ')}`.trimEnd();
  const lines = [line(columns), ...rows.map(line)];
  if (value.length > MAX_ROWS) lines.push(`${indent}… ${value.length - MAX_ROWS} more rows (use --format json)`);
  return lines;
}

/**
 * A short indented outline of a JSON value; long arrays and deep nesting are summarised. A list of
 * flat objects near the top (a listing's page, a layout's sections) is a table of every item, up to
 * {@link MAX_ROWS}; `shown.rows` counts the rows of tables, which {@link clip} does not cut.
 */
export function outline(value: unknown, indent = '  ', depth = 0, shown = { rows: 0 }): string[] {
  if (value === null || typeof value !== 'object') return [`${indent}${scalar(value)}`];
  const lines: string[] = [];
  const entries: Array<[string, unknown]> = Array.isArray(value)
    ? value.slice(0, 8).map((v, i) => [`[${i}]`, v])
    : Object.entries(value as Record<string, unknown>);
  for (const [key, child] of entries) {
    const columns = Array.isArray(child) && depth < 2 ? columnsOf(child) : null;
    if (child === null || typeof child !== 'object') lines.push(`${indent}${key}: ${scalar(child)}`);
    else if (Array.isArray(child) && child.length === 0) lines.push(`${indent}${key}: []`);
    else if (Array.isArray(child) && shortList(child) !== null) lines.push(`${indent}${key}: ${shortList(child)}`);
    else if (columns !== null) {
      const rows = table(child as Array<Record<string, unknown>>, columns, `${indent}  `);
      shown.rows += rows.length;
      lines.push(`${indent}${key}: (${items((child as unknown[]).length)})`, ...rows);
    } else if (depth >= 2) {
      lines.push(
        `${indent}${key}: ${Array.isArray(child) ? `[${items(child.length)}]` : `{${fields(Object.keys(child).length)}}`}`,
      );
    } else {
      lines.push(`${indent}${key}:${Array.isArray(child) ? ` (${items(child.length)})` : ''}`);
      lines.push(...outline(child, `${indent}  `, depth + 1, shown));
    }
  }
  if (Array.isArray(value) && value.length > 8) lines.push(`${indent}… ${value.length - 8} more (use --format json)`);
  return lines;
}

/** The first {@link MAX_LINES} lines, and as many more as `rows` (the rows of tables, shown whole). */
function clip(lines: string[], rows = 0): string[] {
  const max = MAX_LINES + rows;
  if (lines.length <= max) return lines;
  return [...lines.slice(0, max), `  … ${lines.length - max} more lines (use --format json)`];
}

/**
 * The outline of a result after the lines of `before` (its key facts), clipped together. A top-level
 * line of the outline that `before` already holds word for word (a result's `format`) is not repeated.
 */
function clippedOutline(value: unknown, indent: string, before: string[] = []): string[] {
  const shown = { rows: 0 };
  const stated = new Set(before);
  const topLevel = (line: string): boolean => line.startsWith(indent) && line.charAt(indent.length) !== ' ';
  const lines = outline(value, indent, 0, shown).filter((line) => !(stated.has(line) && topLevel(line)));
  return clip([...before, ...lines], shown.rows);
}

/** The first of `keys` whose value in `record` is a string. */
function firstString(record: Record<string, unknown>, keys: readonly string[]): string | undefined {
  return keys.map((key) => record[key]).find((v): v is string => typeof v === 'string');
}

/**
 * A short label for an array item: its name, path or id, with its address when it has one; else what
 * it observed (a string's quoted value, an API called, a specifier imported, a URL or host), else its
 * address, else the node it was observed in.
 */
function label(item: unknown): string | null {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    return item === null || typeof item === 'object' ? null : scalar(item);
  }
  const record = item as Record<string, unknown>;
  const name = firstString(record, ['name', 'path', 'id']);
  const address = typeof record['address'] === 'string' ? record['address'] : null;
  if (name !== undefined) return address && address !== name ? `${name}@${address}` : name;
  if (typeof record['value'] === 'string') {
    const value = record['value'];
    if (value.length <= 40) return JSON.stringify(value);
    // Cut before a surrogate pair rather than through it.
    const end = /[\ud800-\udbff]/.test(value.charAt(38)) ? 38 : 39;
    return JSON.stringify(`${value.slice(0, end)}…`);
  }
  return (
    firstString(record, ['api', 'specifier', 'url', 'host']) ?? address ?? firstString(record, ['node_id']) ?? null
  );
}

/** An object on one line: its scalar fields as `key=value`, nested values by their size. */
function inline(value: Record<string, unknown>, max = 6): string {
  const parts = Object.entries(value)
    .slice(0, max)
    .map(([key, child]) => {
      if (Array.isArray(child)) return `${key}=${shortList(child) ?? `[${child.length}]`}`;
      if (child !== null && typeof child === 'object') return `${key}={…}`;
      return `${key}=${scalar(child)}`;
    });
  const more = Object.keys(value).length - max;
  return `${parts.join(', ')}${more > 0 ? `, … ${more} more` : ''}`;
}

/** The top-level facts of a result: scalars as they are, objects on one line, arrays by size and first names. */
function brief(value: unknown): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return outline(value, '    ');
  return Object.entries(value as Record<string, unknown>).map(([key, child]) => {
    if (Array.isArray(child)) {
      const labels = child.slice(0, 4).map(label);
      const shown =
        labels.every((l) => l !== null) && labels.length > 0
          ? ` (${labels.join(', ')}${child.length > 4 ? ', …' : ''})`
          : '';
      return `    ${key}: ${items(child.length)}${shown}`;
    }
    if (child !== null && typeof child === 'object') return `    ${key}: ${inline(child as Record<string, unknown>)}`;
    return `    ${key}: ${scalar(child)}`;
  });
}

/**
 * The top-level facts of a result whose generic summary would hide them (counts and verdicts deep in
 * nested objects), by operation; a summariser answers null for a result it does not recognise.
 */
const FACTS: Readonly<Record<string, (result: unknown) => string[] | null>> = {
  inspect_android_package: androidPackageFacts,
};

/** The key facts of a record by its operation's own summary, or null when it has none. */
function keyFacts(record: EvidenceRecord): string[] | null {
  return Object.hasOwn(FACTS, record.operation) ? FACTS[record.operation]!(record.normalized_result) : null;
}

/** The brief facts of a record: its operation's own summary when it has one, else {@link brief}. */
function briefFacts(record: EvidenceRecord): string[] {
  return keyFacts(record) ?? brief(record.normalized_result);
}

/**
 * Makes a human formatter safe for a terminal: every string of its arguments (names, paths and
 * strings that come from a target, messages that quote them) is escaped before it is laid out. Every
 * human formatter of the CLI is built through this one function.
 */
export function printable<A extends unknown[]>(layout: (...args: A) => string): (...args: A) => string {
  return (...args: A) => layout(...escapeTerminalValue(args));
}

function layoutEvidence(record: EvidenceRecord, briefly = false): string {
  const subject = record.subject
    ? `${record.subject.format}, ${record.subject.size} bytes, sha256 ${record.subject.sha256}`
    : 'none';
  const coverage =
    record.coverage.status === 'complete' ? 'complete' : `partial (${record.coverage.reasons.join('; ')})`;
  const lines = [
    `${record.operation}  ${record.evidence_id}`,
    `  subject:     ${subject}`,
    `  provider:    ${record.provider.name} ${record.provider.version} (${record.provider.id})`,
    `  confidence:  ${record.confidence}`,
    `  coverage:    ${coverage}`,
    // Where the call left something on this machine (an extraction's output directory), beside its path.
    ...Object.entries(record.local ?? {})
      .filter(([key, value]) => key !== 'path' && typeof value === 'string')
      .map(([key, value]) => `  ${`${key.replace(/_/g, ' ')}:`.padEnd(12)} ${value as string}`),
    record.limitations.length === 0 ? '  limitations: none' : '  limitations:',
    ...record.limitations.map((l) => `    - ${l.kind}: ${l.message}${l.scope ? ` (${l.scope})` : ''}`),
    `  result:`,
    // In full, the operation's key facts (when it has a summary of them) come before the outline.
    ...(briefly ? clip(briefFacts(record)) : clippedOutline(record.normalized_result, '    ', keyFacts(record) ?? [])),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * The readable summary of an Evidence record: id, subject, provider, coverage, limitations, and the
 * result (an outline, or with `briefly` only its top-level facts, or its operation's key facts).
 */
export const formatEvidence: (record: EvidenceRecord, briefly?: boolean) => string = printable(layoutEvidence);

/** The readable form of a plain (non-Evidence) result. */
export const formatResult: (tool: string, value: unknown) => string = printable(
  (tool: string, value: unknown) => `${[tool, ...clippedOutline(value, '  ')].join('\n')}\n`,
);

/** The readable form of a diagnostic: one line with the code, then the remediation and key details. */
export const formatDiagnostic: (diagnostic: Diagnostic) => string = printable(layoutDiagnostic);

function layoutDiagnostic(diagnostic: Diagnostic): string {
  const { code, message, operation, remediation, details } = diagnostic.error;
  const lines = [`rea: error [${code}]${operation ? ` in ${operation}` : ''}: ${message}`];
  const issues = details['issues'];
  if (Array.isArray(issues)) {
    for (const issue of issues.slice(0, 10) as Array<{ path?: unknown; message?: unknown }>) {
      lines.push(`  - ${String(issue.path)}: ${String(issue.message)}`);
    }
  }
  const cause = details['cause'] as { name?: unknown; message?: unknown } | undefined;
  if (cause && typeof cause === 'object') lines.push(`  cause: ${String(cause.name)}: ${String(cause.message)}`);
  if (remediation) lines.push(`  remediation: ${remediation}`);
  // The details the message or remediation points at (`details.candidates`), which only JSON showed.
  const named = new Set(
    [...`${message} ${remediation ?? ''}`.matchAll(/details\.([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!),
  );
  for (const key of named) {
    if (key === 'issues' || key === 'cause' || !Object.hasOwn(details, key)) continue;
    lines.push(`  ${key}: ${detailText(details[key])}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A detail on one line: a list by its items' names (or their JSON), anything else as JSON, clipped. */
function detailText(value: unknown): string {
  const text = Array.isArray(value)
    ? value.map((item) => label(item) ?? JSON.stringify(item)).join(', ')
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}
