import type { Logger, ProgressSink } from '@rea/provider-kit';

/** A writable text stream that may be a terminal. */
export interface TextStream {
  write(chunk: string): boolean;
  isTTY?: boolean;
  columns?: number;
}

/** A progress sink that can clear its live line before the result is printed. */
export interface TerminalProgress extends ProgressSink {
  /** Removes the live line, if one is shown. */
  clear(): void;
}

/**
 * Progress on stderr: one live line, rewritten in place, when `stream` is a terminal and `quiet` is
 * false; nothing otherwise (stdout is never touched, so pipes stay clean). Rewrites are bounded to one
 * per 100 ms; the newest message is the one shown.
 */
export function createTerminalProgress(stream: TextStream, quiet: boolean): TerminalProgress {
  const live = stream.isTTY === true && !quiet;
  let shown = false;
  let last = 0;
  return {
    report(message: string) {
      if (!live) return;
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      const width = Math.max(20, (stream.columns ?? 80) - 1);
      const line = message.replace(/\s+/g, ' ');
      stream.write(`\r\x1b[2K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
      shown = true;
    },
    clear() {
      if (shown) stream.write('\r\x1b[2K');
      shown = false;
    },
  };
}

/** A logger on stderr: warnings and errors unless `quiet`; debug and info only when `verbose`. */
export function createStderrLogger(stream: TextStream, quiet: boolean, verbose: boolean): Logger {
  const line = (level: string, message: string): void => {
    stream.write(`rea: ${level}: ${message}\n`);
  };
  return {
    debug: (message) => (verbose && !quiet ? line('debug', message) : undefined),
    info: (message) => (verbose && !quiet ? line('info', message) : undefined),
    warn: (message) => (quiet ? undefined : line('warning', message)),
    error: (message) => (quiet ? undefined : line('error', message)),
  };
}
