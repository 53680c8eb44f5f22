import { ReaError } from '@rea/evidence';

/** The syntax of a provider id: lowercase letters, digits and hyphens, starting with a letter. */
export const PROVIDER_ID_PATTERN = /^[a-z][a-z0-9-]{0,63}$/;

/** A parsed provider choice: `auto`, or one concrete provider id. */
export type ProviderChoice = { kind: 'auto' } | { kind: 'concrete'; id: string };

/** Where a provider choice came from: the MCP `provider_id` / CLI `--provider` argument, or REA_ANALYSIS_PROVIDER. */
export type ChoiceSource = 'argument' | 'environment';

const ACCEPTED = '"auto" or a provider id (lowercase letters, digits and hyphens, starting with a letter)';

/**
 * Parses a provider choice, shared by MCP `provider_id`, CLI `--provider` and REA_ANALYSIS_PROVIDER.
 * Accepts exactly `auto` or a syntactically valid provider id (no trimming, no case folding). Whether
 * the id names a registered provider is decided by {@link selectProvider}. Invalid syntax fails with
 * `invalid_request` (`details.reason: "invalid-provider-id"`, `value`) for an argument, and with
 * `configuration_invalid` (`details.variable`, `value`, `accepted`) for the environment variable.
 */
export function parseProviderChoice(value: unknown, source: ChoiceSource = 'argument'): ProviderChoice {
  if (value === 'auto') return { kind: 'auto' };
  if (typeof value === 'string' && PROVIDER_ID_PATTERN.test(value)) return { kind: 'concrete', id: value };
  const shown = typeof value === 'string' ? value.slice(0, 200) : String(value);
  if (source === 'environment') {
    throw new ReaError('configuration_invalid', `REA_ANALYSIS_PROVIDER="${shown}" is not ${ACCEPTED}.`, {
      details: { variable: 'REA_ANALYSIS_PROVIDER', value: shown, accepted: ACCEPTED },
    });
  }
  throw new ReaError('invalid_request', `provider_id "${shown}" is not ${ACCEPTED}.`, {
    details: { reason: 'invalid-provider-id', value: shown, accepted: ACCEPTED },
  });
}
