import { capEcho } from '@rea/evidence';
import { INVALID_PARAMS, RpcError } from './frames.js';
import type { LogLevel } from './logger.js';

/** The MCP log levels, least severe first (RFC 5424 severities). */
export const MCP_LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;

/** One MCP log level. */
export type McpLogLevel = (typeof MCP_LOG_LEVELS)[number];

/** The MCP level of each of the server's own levels. */
export const MCP_LEVEL_OF: Record<LogLevel, McpLogLevel> = {
  debug: 'debug',
  info: 'info',
  warn: 'warning',
  error: 'error',
};

/**
 * The log level one client chose with `logging/setLevel`. Until it chooses one, nothing is sent as
 * `notifications/message`: log entries stay on the server's stderr.
 */
export interface LogGate {
  /** The chosen level, or null before `logging/setLevel`. */
  readonly level: McpLogLevel | null;
  /** Answers a `logging/setLevel` request's params: stores the level or throws -32602. */
  setLevel(params: unknown): Record<string, never>;
  /** True when an entry at `level` goes to the client. */
  allows(level: McpLogLevel): boolean;
}

/** A gate for one connection. */
export function createLogGate(): LogGate {
  let chosen: McpLogLevel | null = null;
  return {
    get level() {
      return chosen;
    },
    setLevel(params) {
      const level = (params as { level?: unknown } | null)?.level;
      if (typeof level !== 'string' || !(MCP_LOG_LEVELS as readonly string[]).includes(level)) {
        const shown =
          typeof level === 'string' ? `"${capEcho(level, 64)}"` : String(JSON.stringify(level) ?? 'nothing');
        throw new RpcError(
          INVALID_PARAMS,
          `Invalid params for logging/setLevel: level ${capEcho(shown, 80)} is not one of ${MCP_LOG_LEVELS.join(', ')}.`,
        );
      }
      chosen = level as McpLogLevel;
      return {};
    },
    allows(level) {
      return chosen !== null && MCP_LOG_LEVELS.indexOf(level) >= MCP_LOG_LEVELS.indexOf(chosen);
    },
  };
}
