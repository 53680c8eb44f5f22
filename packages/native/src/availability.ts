import { NATIVE_PORT, portSession } from '@rea/provider-kit';
import type { Availability, AvailabilityContext } from '@rea/provider-kit';
import { isNativePort } from './port.js';

/** Availability of every native tool: a target bound to a native-analysis provider. */
export function nativeAvailability(context: AvailabilityContext): Availability {
  const binding = context.session.binding;
  if (binding === null) {
    return {
      available: false,
      reason: 'no native target is open',
      remediation: 'Open a native binary with open_binary first.',
    };
  }
  if (!isNativePort(portSession(binding, NATIVE_PORT))) {
    return {
      available: false,
      reason: `the bound provider ${binding.provider.id} does not offer native analysis`,
      remediation:
        'Open the target with a provider of the native port (binary_session lists them as analysis_provider_candidates).',
    };
  }
  return { available: true };
}
