// The text format of JAR manifests and signature files (META-INF/MANIFEST.MF, META-INF/*.SF): sections
// of "Name: value" lines, continuation lines starting with a space, sections ended by a blank line.
// Each section keeps where its bytes lie, since signature files sign manifest sections byte for byte.

/** One section: its attributes (names lowercased) and the bytes it spans, blank line included. */
export interface JarSection {
  attributes: Map<string, string>;
  start: number;
  end: number;
}

/** The main section and the per-entry sections (keyed by their `Name`) of a manifest or signature file. */
export interface JarManifest {
  main: JarSection;
  entries: Map<string, JarSection>;
  /** Entry names that appear in more than one section. */
  duplicates: string[];
}

/** Lines ended by LF or CR LF, found by the native search; null when a CR stands alone. */
function lfLines(bytes: Buffer): { text: string; end: number }[] | null {
  const out: { text: string; end: number }[] = [];
  let start = 0;
  let cr = bytes.indexOf(0x0d);
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, start)) {
    const textEnd = i > start && bytes[i - 1] === 0x0d ? i - 1 : i;
    if (cr !== -1 && cr < textEnd) return null;
    if (cr !== -1 && cr < i) cr = bytes.indexOf(0x0d, i + 1);
    out.push({ text: bytes.toString('utf8', start, textEnd), end: i + 1 });
    start = i + 1;
  }
  if (cr !== -1) return null;
  if (start < bytes.length) out.push({ text: bytes.toString('utf8', start), end: bytes.length });
  return out;
}

function lines(bytes: Buffer): { text: string; end: number }[] {
  const fast = lfLines(bytes);
  if (fast !== null) return fast;
  const out: { text: string; end: number }[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c !== 0x0a && c !== 0x0d) continue;
    const text = bytes.toString('utf8', start, i);
    if (c === 0x0d && bytes[i + 1] === 0x0a) i++;
    out.push({ text, end: i + 1 });
    start = i + 1;
  }
  if (start < bytes.length) out.push({ text: bytes.toString('utf8', start), end: bytes.length });
  return out;
}

/** Parses a manifest or signature file; lines that are not `Name: value` are ignored. */
export function parseJarManifest(bytes: Buffer): JarManifest {
  const sections: JarSection[] = [];
  let current: JarSection | null = null;
  let last: string | null = null;
  let start = 0;
  for (const line of lines(bytes)) {
    if (line.text === '') {
      if (current !== null) {
        current.end = line.end;
        sections.push(current);
      }
      current = null;
      last = null;
      start = line.end;
      continue;
    }
    current ??= { attributes: new Map(), start, end: line.end };
    current.end = line.end;
    if (line.text.startsWith(' ') && last !== null) {
      current.attributes.set(last, current.attributes.get(last)! + line.text.slice(1));
      continue;
    }
    const colon = line.text.indexOf(': ');
    if (colon <= 0) continue;
    last = line.text.slice(0, colon).toLowerCase();
    current.attributes.set(last, line.text.slice(colon + 2));
  }
  if (current !== null) sections.push(current);
  const main =
    sections[0]?.attributes.has('name') === false ? sections.shift()! : { attributes: new Map(), start: 0, end: 0 };
  const entries = new Map<string, JarSection>();
  const duplicates: string[] = [];
  for (const s of sections) {
    const name = s.attributes.get('name');
    if (name === undefined) continue;
    if (entries.has(name)) duplicates.push(name);
    entries.set(name, s);
  }
  return { main, entries, duplicates };
}

const DIGEST = new Map<string, RegExp>();

/** The digests a section declares: `[node hash name, base64 value]` for each `<ALG>-Digest<suffix>`. */
export function digestsOf(section: JarSection, suffix = ''): [string, string][] {
  const out: [string, string][] = [];
  let pattern = DIGEST.get(suffix);
  if (pattern === undefined)
    DIGEST.set(suffix, (pattern = new RegExp(`^(sha-?1|sha-256|sha-384|sha-512|md5)-digest${suffix}$`)));
  for (const [key, value] of section.attributes) {
    const m = pattern.exec(key);
    if (m === null) continue;
    out.push([m[1]!.replace('-', ''), value]);
  }
  return out;
}
