import { canonicalJson } from '@rea/evidence';
import type { JsonValue } from '@rea/evidence';
import type { WebPageInspection } from '../inspect/schema.js';
import type { ScenarioCapture } from '../scenario/schema.js';
import type { WebCaptureComparison } from './schema.js';

type Section = WebCaptureComparison['scripts'];

/**
 * The comparison key of every item of both sides. An item's key is `key(t)`; when `qualify` is given and
 * items sharing a key have different qualifiers (on either side), each such key becomes `key (qualifier)`;
 * keys still shared by several items of one side (inline scripts share their page's URL, a URL can be
 * requested twice) are numbered by occurrence on every side, `key #1`, `key #2`…, so none hides another.
 */
function keysOf<T>(sides: ReadonlyArray<readonly T[]>, key: (t: T) => string, qualify?: (t: T) => string): string[][] {
  let keys = sides.map((items) => items.map(key));
  if (qualify) {
    const qualifiers = new Map<string, Set<string>>();
    sides.forEach((items, s) =>
      items.forEach((t, i) => {
        const k = keys[s]![i]!;
        qualifiers.set(k, (qualifiers.get(k) ?? new Set()).add(qualify(t)));
      }),
    );
    keys = keys.map((ks, s) =>
      ks.map((k, i) => (qualifiers.get(k)!.size > 1 ? `${k} (${qualify(sides[s]![i]!)})` : k)),
    );
  }
  const repeated = new Set<string>();
  for (const ks of keys) {
    const seen = new Set<string>();
    for (const k of ks) (seen.has(k) ? repeated : seen).add(k);
  }
  return keys.map((ks) => {
    const occurrence = new Map<string, number>();
    return ks.map((k) => {
      if (!repeated.has(k)) return k;
      const n = (occurrence.get(k) ?? 0) + 1;
      occurrence.set(k, n);
      return `${k} #${n}`;
    });
  });
}

/**
 * Keyed comparison: keys on one side only, and keys whose fingerprint differs. Items that share a key are
 * told apart by `qualify` and then by occurrence (see {@link keysOf}), so every change is reported.
 */
export function diffKeyed<T>(
  before: readonly T[],
  after: readonly T[],
  key: (t: T) => string,
  print: (t: T) => string,
  qualify?: (t: T) => string,
): Section {
  const [keysBefore, keysAfter] = keysOf([before, after], key, qualify);
  const a = new Map(before.map((t, i) => [keysBefore![i]!, print(t)]));
  const b = new Map(after.map((t, i) => [keysAfter![i]!, print(t)]));
  const sorted = (xs: string[]) => [...new Set(xs)].sort();
  return {
    added: sorted([...b.keys()].filter((k) => !a.has(k))),
    removed: sorted([...a.keys()].filter((k) => !b.has(k))),
    changed: sorted([...a.keys()].filter((k) => b.has(k) && a.get(k) !== b.get(k))).map((k) => ({
      key: k,
      before: a.get(k)!,
      after: b.get(k)!,
    })),
  };
}

/** Scripts and resources of two inspections. */
export function diffInspections(
  before: WebPageInspection,
  after: WebPageInspection,
): Pick<WebCaptureComparison, 'scripts' | 'resources'> {
  return {
    scripts: diffKeyed(
      before.scripts,
      after.scripts,
      (s) => s.url,
      (s) => s.sha256 ?? `unhashed ${s.size}`,
    ),
    resources: diffKeyed(
      before.resources,
      after.resources,
      (r) => r.url,
      (r) => `${r.status ?? '-'} ${r.mime ?? '-'}`,
    ),
  };
}

type Tool = { name: string; description: string; input_schema: unknown; source: string; frame: string };

/**
 * WebMCP tools by name (a name offered by several frames or sources is keyed `name (source frame)`); a tool
 * changes when its description or input schema does.
 */
export function diffTools(before: readonly Tool[], after: readonly Tool[]): Section {
  return diffKeyed(
    before,
    after,
    (t) => t.name,
    (t) => canonicalJson({ description: t.description, input_schema: (t.input_schema ?? null) as JsonValue }),
    (t) => `${t.source} ${t.frame}`,
  );
}

/** Applies the normalization rules in order. */
export function normalizer(rules: ReadonlyArray<{ pattern: RegExp; replacement: string }>): (text: string) => string {
  return (text) => rules.reduce((t, r) => t.replace(r.pattern, r.replacement), text);
}

/** Event signatures on one side only (as multisets), and actions whose outcome differs. */
export function diffScenarios(
  before: ScenarioCapture,
  after: ScenarioCapture,
  normalize: (t: string) => string,
): NonNullable<WebCaptureComparison['events']> {
  const signature = (e: ScenarioCapture['events'][number]) =>
    normalize(`${e.kind} ${e.url ?? ''} ${e.status ?? ''} ${e.detail}`.trim());
  const count = (events: ScenarioCapture['events']) => {
    const m = new Map<string, number>();
    for (const e of events) m.set(signature(e), (m.get(signature(e)) ?? 0) + 1);
    return m;
  };
  const a = count(before.events);
  const b = count(after.events);
  const only = (x: Map<string, number>, y: Map<string, number>) =>
    [...x].flatMap(([k, n]) => Array<string>(Math.max(0, n - (y.get(k) ?? 0))).fill(k)).sort();
  const outcomes = (c: ScenarioCapture) => c.actions.map((x) => ({ key: `${x.index} ${x.action}`, value: x.outcome }));
  return {
    added: only(b, a),
    removed: only(a, b),
    actions_changed: diffKeyed(
      outcomes(before),
      outcomes(after),
      (x) => x.key,
      (x) => x.value,
    ).changed,
  };
}
