// The bridge protocol's name and limits, apart from its schemas: a provider that names the protocol (in its
// analysis profile) or only discovers its engine loads no schema.

/**
 * The bridge protocol between REA and an external engine's bridge script: UTF-8 JSON, one object per
 * line, over a Unix socket REA listens on (see the package README, "Bridge protocol").
 */
export const BRIDGE_PROTOCOL = 'rea-bridge/1';

/** Environment variable naming the socket path the bridge script connects to. */
export const BRIDGE_SOCKET_ENV = 'REA_BRIDGE_SOCKET';
/** Environment variable carrying the per-session token the bridge script presents in its hello. */
export const BRIDGE_TOKEN_ENV = 'REA_BRIDGE_TOKEN';

/** The longest line either side may send, in bytes; a longer one is a protocol violation. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;
