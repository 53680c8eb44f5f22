import type { JsonObject } from '@rea/evidence';
import type { Logger } from '@rea/provider-kit';

/** Severity order shared by stderr and MCP logging. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Where a log line can go besides stderr: MCP `notifications/message` of one connection. */
export type LogForwarder = (level: LogLevel, message: string, data?: JsonObject) => void;

/**
 * A logger that writes one JSON line per entry at or above `level` to stderr (never stdout, which
 * carries only protocol frames).
 */
export function createStderrLogger(options: { level?: LogLevel; write?: (line: string) => void }): Logger {
  const threshold = ORDER[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const log = (level: LogLevel, message: string, data?: JsonObject): void => {
    if (ORDER[level] >= threshold) {
      write(`${JSON.stringify({ level, time: new Date().toISOString(), message, ...(data ? { data } : {}) })}\n`);
    }
  };
  return {
    debug: (message, data) => log('debug', message, data),
    info: (message, data) => log('info', message, data),
    warn: (message, data) => log('warn', message, data),
    error: (message, data) => log('error', message, data),
  };
}

/** `base` plus every forwarder in `forwarders` (read at each entry, so connections can come and go). */
export function forwarding(base: Logger, forwarders: ReadonlySet<LogForwarder>): Logger {
  const entry =
    (level: LogLevel) =>
    (message: string, data?: JsonObject): void => {
      base[level](message, data);
      for (const forward of forwarders) forward(level, message, data);
    };
  return { debug: entry('debug'), info: entry('info'), warn: entry('warn'), error: entry('error') };
}
