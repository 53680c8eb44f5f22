import { EFFECT_FLAGS } from '@rea/provider-kit';
import type { AnyToolContract, ToolEffects } from '@rea/provider-kit';

/**
 * The effect record of `contract` as `binary_session` reports it: every flag of {@link ToolEffects}
 * in the declared order, each a boolean of its own (a copy: the contract's own record stays frozen).
 */
export function effectsOf(contract: Pick<AnyToolContract, 'effects'>): ToolEffects {
  const record = {} as ToolEffects;
  for (const flag of EFFECT_FLAGS) record[flag] = contract.effects[flag];
  return record;
}
