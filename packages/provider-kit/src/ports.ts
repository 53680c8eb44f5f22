import type { ProviderBinding } from './context.js';

/**
 * The ports deep providers implement, by name, with the session type a provider of that port
 * returns from `open`. A port package adds its own by declaration merging:
 *
 * ```ts
 * declare module '@rea/provider-kit' {
 *   interface DeepPorts {
 *     native: NativePort;
 *   }
 * }
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface DeepPorts {}

/** The session type of port `P`: the declared one, or `unknown` for a port no package has declared. */
export type PortSession<P extends string> = P extends keyof DeepPorts ? DeepPorts[P] : unknown;

/** The port `open_binary` (and the CLI's `--target`) binds: static analysis of a native binary. */
export const NATIVE_PORT = 'native';

/** The syntax of a port name: lowercase letters, digits and hyphens, starting with a letter. */
export const PORT_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;

/** The bound session when `binding` implements `port`, typed by that port; null otherwise. */
export function portSession<P extends string>(binding: ProviderBinding | null, port: P): PortSession<P> | null {
  if (binding === null || binding.port !== port) return null;
  return binding.session as PortSession<P>;
}

/**
 * The ids of the providers of the bound port (other than the bound one) that declare `capability`,
 * sorted: the alternatives a `capability_unavailable` remedy names. Empty when none does, or when the
 * host did not list the port's providers in the binding.
 */
export function alternativesFor(binding: ProviderBinding | null, capability: string): string[] {
  if (binding === null) return [];
  return (binding.peers ?? [])
    .filter((peer) => peer.id !== binding.provider.id && peer.capabilities.includes(capability))
    .map((peer) => peer.id)
    .sort();
}
