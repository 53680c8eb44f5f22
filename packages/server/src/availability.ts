import type { AnyToolContract, Availability, ClientFeature } from '@rea/provider-kit';
import { effectsOf } from './effects.js';
import type { ToolAvailabilityEntry } from './host.js';

/** One tool's entry of `binary_session`'s tool_availability, from its contract or its facts. */
export function availabilityEntry(
  tool: Pick<AnyToolContract, 'name' | 'effects' | 'clientFeatures'>,
  availability: Availability,
  features: ReadonlySet<ClientFeature>,
): ToolAvailabilityEntry {
  const missing = tool.clientFeatures.required.filter((feature: ClientFeature) => !features.has(feature));
  const available = availability.available && missing.length === 0;
  return {
    name: tool.name,
    available,
    reason: availability.available
      ? missing.length > 0
        ? `the client did not negotiate: ${missing.join(', ')}`
        : null
      : availability.reason,
    remediation: availability.available
      ? missing.length > 0
        ? 'Use a client that supports the listed MCP features.'
        : null
      : availability.remediation,
    client_features: {
      required: [...tool.clientFeatures.required],
      optional: [...tool.clientFeatures.optional],
      missing,
    },
    effects: effectsOf(tool),
  };
}
