import type { Readable } from 'node:stream';

const MATCH_WINDOW = 65_536;

/** What one output stream produced: kept text up to a byte budget, the total, and a match window. */
export class OutputCollector {
  private kept: Buffer[] = [];
  private keptBytes = 0;
  /** Every byte received, kept or not. */
  total = 0;
  /** Text not yet consumed by a `wait_for_output` match, bounded to the last 64 KiB. */
  private unmatched = '';
  private listeners = new Set<() => void>();
  readonly closed: Promise<void>;

  constructor(
    private readonly budget: number,
    private readonly onText?: (text: string) => void,
  ) {
    this.closed = Promise.resolve();
  }

  /** Reads `stream` to its end; resolves `closed` then. */
  attach(stream: Readable | null): Promise<void> {
    if (stream === null) return Promise.resolve();
    return new Promise<void>((resolve) => {
      stream.on('data', (chunk: Buffer) => this.add(chunk));
      stream.once('close', () => resolve());
      stream.once('error', () => resolve());
    });
  }

  add(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.budget - this.keptBytes;
    if (room > 0) {
      const part = chunk.subarray(0, room);
      this.kept.push(part);
      this.keptBytes += part.length;
    }
    const text = chunk.toString('utf8');
    this.unmatched = (this.unmatched + text).slice(-MATCH_WINDOW);
    this.onText?.(text);
    for (const listener of [...this.listeners]) listener();
  }

  /** Searches the unconsumed text; on a match, consumes it up to the match's end. */
  consume(pattern: RegExp): boolean {
    const match = pattern.exec(this.unmatched);
    if (match === null) return false;
    this.unmatched = this.unmatched.slice(match.index + match[0].length);
    return true;
  }

  /** Calls `listener` after every chunk until the returned function is called. */
  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The kept text, whether the budget cut it, and the total byte count. */
  result(): { text: string; bytes: number; truncated: boolean } {
    return {
      text: Buffer.concat(this.kept).toString('utf8'),
      bytes: this.total,
      truncated: this.total > this.keptBytes,
    };
  }
}
