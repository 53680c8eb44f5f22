import type { z } from 'zod';
import { canonicalJson } from '@rea/evidence';
import { isObject } from './walk.js';
import type { ToolExampleLike } from './types.js';

const EVIDENCE_ID = /^ev_[0-9a-f]{64}$/;

/** Why an example is not advertised. */
export type ExampleExclusion =
  /** The contract marks it `advertised: false`. */
  | 'not-advertised'
  /** It embeds a complete Evidence record at a position that does not accept a retained reference. */
  | 'inline-evidence'
  /** It is not a valid canonical input. */
  | 'invalid'
  /** Its advertised form repeats an earlier advertised example. */
  | 'duplicate';

/** The advertised form of one example, or why it stays in the contract and its tests only. */
export type ExampleProjection =
  | { advertised: true; input: unknown; /** How many embedded records became references. */ referenced: number }
  | { advertised: false; reason: ExampleExclusion };

/** True for a complete Evidence record: an object with `schema_version: 2` and an `ev_…` id. */
export function isEmbeddedEvidence(value: unknown): value is { evidence_id: string } {
  return (
    isObject(value) &&
    value['schema_version'] === 2 &&
    typeof value['evidence_id'] === 'string' &&
    EVIDENCE_ID.test(value['evidence_id'])
  );
}

function replaceEvidence(value: unknown, counter: { count: number }): unknown {
  if (isEmbeddedEvidence(value)) {
    counter.count += 1;
    return { kind: 'retained-evidence', evidence_id: value.evidence_id };
  }
  if (Array.isArray(value)) return value.map((item) => replaceEvidence(item, counter));
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = replaceEvidence(item, counter);
    return out;
  }
  return value;
}

/** Whether the canonical schema accepts `value` (a schema that cannot parse synchronously does not). */
function accepts(schema: z.ZodType, value: unknown): boolean {
  try {
    return schema.safeParse(value).success;
  } catch {
    return false;
  }
}

/**
 * The advertised form of an example for a tool whose canonical input schema is `input`. Every
 * embedded Evidence record is replaced by its `{"kind":"retained-evidence","evidence_id":…}`
 * reference; the result is advertised only when the canonical schema accepts it (so the tool takes
 * a reference at each of those positions). An example marked `advertised: false`, one that is not a
 * valid canonical input, or one that can only carry inline Evidence is not advertised.
 */
export function advertisedExample(example: ToolExampleLike, input: z.ZodType): ExampleProjection {
  if (example.advertised === false) return { advertised: false, reason: 'not-advertised' };
  const counter = { count: 0 };
  const projected = replaceEvidence(example.input, counter);
  if (accepts(input, projected)) return { advertised: true, input: projected, referenced: counter.count };
  return { advertised: false, reason: counter.count > 0 ? 'inline-evidence' : 'invalid' };
}

/**
 * Projects every example of a tool (see {@link advertisedExample}) and drops advertised forms that
 * repeat an earlier one, so the result is a list of distinct valid canonical inputs, in contract
 * order, with the exclusion reason of each example at the same index.
 */
export function projectExamples(
  examples: ReadonlyArray<ToolExampleLike>,
  input: z.ZodType,
): { advertised: unknown[]; projections: ExampleProjection[] } {
  const seen = new Set<string>();
  const advertised: unknown[] = [];
  const projections = examples.map((example): ExampleProjection => {
    const projection = advertisedExample(example, input);
    if (!projection.advertised) return projection;
    const key = canonicalJson(projection.input);
    if (seen.has(key)) return { advertised: false, reason: 'duplicate' };
    seen.add(key);
    advertised.push(projection.input);
    return projection;
  });
  return { advertised, projections };
}
