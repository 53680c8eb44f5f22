import type { Logger, ProgressSink } from '@rea/provider-kit';
import { escapeTerminalText } from './terminalText.js';

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
 * True when the environment asks for plain output: `NO_COLOR` set to anything but the empty string,
 * or `TERM=dumb`. Then nothing REA prints carries an escape sequence.
 */
export function plainTerminal(env: Readonly<Record<string, string | undefined>>): boolean {
  return (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') || env['TERM'] === 'dumb';
}

/**
 * Progress on stderr: one live line, rewritten in place, when `stream` is a terminal and `quiet` is
 * false; nothing otherwise (stdout is never touched, so pipes stay clean). Rewrites are bounded to one
 * per 100 ms; the newest message is the one shown. With `plain` (see {@link plainTerminal}) the line is
 * rewritten with a carriage return and spaces only, never an escape sequence. Messages may quote names
 * from a target, so they are escaped.
 */
export function createTerminalProgress(stream: TextStream, quiet: boolean, plain = false): TerminalProgress {
  // Quiet, the stream is not asked (see processIo.ts).
  const live = !quiet && stream.isTTY === true;
  let shown = 0;
  let last = 0;
  const erase = (): string => (plain ? `\r${' '.repeat(shown)}\r` : '\r\x1b[2K');
  return {
    report(message: string) {
      if (!live) return;
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      const width = Math.max(20, (stream.columns ?? 80) - 1);
      const line = escapeTerminalText(message.replace(/\s+/g, ' '));
      const text = line.length > width ? `${line.slice(0, width - 1)}…` : line;
      stream.write(`${shown > 0 || !plain ? erase() : ''}${text}`);
      shown = Math.max(1, text.length);
    },
    clear() {
      if (shown > 0) stream.write(erase());
      shown = 0;
    },
  };
}

/** A logger on stderr: warnings and errors unless `quiet`; debug and info only when `verbose`. */
export function createStderrLogger(stream: TextStream, quiet: boolean, verbose: boolean): Logger {
  const line = (level: string, message: string): void => {
    stream.write(`rea: ${level}: ${escapeTerminalText(message)}\n`);
  };
  return {
    debug: (message) => (verbose && !quiet ? line('debug', message) : undefined),
    info: (message) => (verbose && !quiet ? line('info', message) : undefined),
    warn: (message) => (quiet ? undefined : line('warning', message)),
    error: (message) => (quiet ? undefined : line('error', message)),
  };
}
