import { EFFECT_FLAGS } from './effects.js';
import type { ToolEffects } from './effects.js';
import type { ClientFeature } from './context.js';
import { ALWAYS_AVAILABLE } from './tool.js';
import type { AnyToolContract } from './tool.js';

/**
 * What a host needs to know of a tool before its contract loads: its name, its effects (all nine
 * flags, in {@link EFFECT_FLAGS} order) and the client features it requires and uses. Plain data, so
 * that a host can store them ahead of time (e.g. generated) and compare them with the contract once it
 * loads; its availability check is a function, which the host states beside them.
 */
export interface ToolFacts {
  name: string;
  effects: ToolEffects;
  clientFeatures: { required: readonly ClientFeature[]; optional: readonly ClientFeature[] };
}

/** The facts of `contract`. */
export function toolFactsOf(contract: AnyToolContract): ToolFacts {
  const effects = {} as ToolEffects;
  for (const flag of EFFECT_FLAGS) effects[flag] = contract.effects[flag];
  return {
    name: contract.name,
    effects,
    clientFeatures: {
      required: [...contract.clientFeatures.required],
      optional: [...contract.clientFeatures.optional],
    },
  };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

/**
 * The names of the tools whose facts `declared` does not state exactly as `contracts` do, sorted (empty
 * when they agree): a tool missing on either side, other effects or client features, or another
 * availability check than `availability` (by default none: always available, as {@link defineTool}
 * makes a tool that declares none).
 */
export function toolFactsMismatch(
  declared: readonly ToolFacts[],
  contracts: readonly AnyToolContract[],
  availability: AnyToolContract['availability'] = ALWAYS_AVAILABLE,
): string[] {
  const actual = new Map(
    contracts.map((contract) => [contract.name, contract.availability === availability ? toolFactsOf(contract) : null]),
  );
  const stated = new Map(declared.map((facts) => [facts.name, facts]));
  const names = new Set([...actual.keys(), ...stated.keys()]);
  const differing = [...names].filter((name) => {
    const a = actual.get(name);
    const b = stated.get(name);
    if (!a || !b) return true;
    return (
      EFFECT_FLAGS.some((flag) => a.effects[flag] !== b.effects[flag]) ||
      !sameList(a.clientFeatures.required, b.clientFeatures.required) ||
      !sameList(a.clientFeatures.optional, b.clientFeatures.optional)
    );
  });
  return differing.sort();
}
