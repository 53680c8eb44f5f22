import type { JsonObject } from '@rea/evidence';
import type { Logger } from '@rea/provider-kit';

/** Severity order shared by stderr and MCP logging. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Where a log line can go besides stderr: MCP `notifications/message` of one connection. */
export type LogForwarder = (level: LogLevel, message: string, data?: JsonObject) => void;

/**
 * A logger that writes one JSON line per entry to stderr (never stdout, which carries only protocol
 * frames) at or above `level`, and hands every entry to the forwarders (MCP logging, which applies
 * the client's own level).
 */
export function createStderrLogger(options: {
  level?: LogLevel;
  write?: (line: string) => void;
  forwarders?: Set<LogForwarder>;
}): Logger & { forwarders: Set<LogForwarder> } {
  const threshold = ORDER[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const forwarders = options.forwarders ?? new Set<LogForwarder>();
  const log = (level: LogLevel, message: string, data?: JsonObject): void => {
    if (ORDER[level] >= threshold) {
      write(`${JSON.stringify({ level, time: new Date().toISOString(), message, ...(data ? { data } : {}) })}\n`);
    }
    for (const forward of forwarders) {
      try {
        forward(level, message, data);
      } catch {
        // A closed connection cannot take log lines; stderr already has it.
      }
    }
  };
  return {
    forwarders,
    debug: (message, data) => log('debug', message, data),
    info: (message, data) => log('info', message, data),
    warn: (message, data) => log('warn', message, data),
    error: (message, data) => log('error', message, data),
  };
}
