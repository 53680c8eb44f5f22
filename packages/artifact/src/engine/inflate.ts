// Inflates many small raw-deflate entries with one reused zlib engine, into a caller's buffer: no
// stream object is built and no output buffer allocated per entry. Anything unusual (a data error, an
// output larger than the room given, a zlib without the synchronous handle) answers null, and the
// caller inflates that entry the ordinary way, which describes the fault exactly.
import { constants, createInflateRaw } from 'node:zlib';
import type { InflateRaw } from 'node:zlib';
import { types } from 'node:util';

/** The synchronous handle of a zlib engine (present in every supported Node.js release). */
interface SyncHandle {
  writeSync(
    flush: number,
    input: Uint8Array,
    inputOffset: number,
    inputLength: number,
    output: Uint8Array,
    outputOffset: number,
    outputLength: number,
  ): void;
}
type Engine = InflateRaw & { _handle?: SyncHandle | null; _writeState?: Uint32Array };

/** One reusable raw inflater. */
export class ReusableInflater {
  private engine: Engine | null = null;

  private fresh(): Engine | null {
    const engine = createInflateRaw() as Engine;
    // A failed write destroys the engine and reports the error on a later tick; it is not needed.
    engine.on('error', () => undefined);
    if (typeof engine._handle?.writeSync !== 'function' || !types.isUint32Array(engine._writeState)) {
      engine.close();
      return null;
    }
    return engine;
  }

  /**
   * Inflates `input` (a whole raw-deflate stream) into `output` and returns how many bytes it
   * produced, or null when the data did not inflate cleanly or did not end before `output` was full
   * (give one byte more than the declared size to tell an overlong entry).
   */
  inflateInto(input: Uint8Array, output: Uint8Array): number | null {
    let engine = this.engine;
    if (engine === null || engine.destroyed || !engine._handle) engine = this.engine = this.fresh();
    if (engine === null) return null;
    engine.reset();
    const handle = engine._handle!;
    handle.writeSync(constants.Z_FINISH, input, 0, input.byteLength, output, 0, output.byteLength);
    if (engine.destroyed || !engine._handle) {
      this.engine = null;
      return null;
    }
    const room = engine._writeState![0]!;
    // A full output may mean more data: the ordinary path decides.
    if (room === 0) return null;
    return output.byteLength - room;
  }

  /**
   * Starts inflating one raw-deflate stream fed in pieces with {@link push}; false when no engine is
   * available (the caller then inflates the ordinary way).
   */
  begin(): boolean {
    let engine = this.engine;
    if (engine === null || engine.destroyed || !engine._handle) engine = this.engine = this.fresh();
    if (engine === null) return false;
    engine.reset();
    return true;
  }

  /**
   * Inflates the next piece of the stream begun with {@link begin} through `room` (reused), handing
   * each filled part of it to `sink` before it is overwritten (a sink answering false stops it). `last` marks the final piece: the
   * stream must end exactly there. Null when anything is not as expected (a data error, a stream
   * that ends before its input, or one that does not end with it); otherwise the bytes produced.
   */
  push(input: Uint8Array, last: boolean, room: Buffer, sink: (bytes: Buffer) => boolean): number | null {
    const engine = this.engine;
    if (engine === null || engine.destroyed || !engine._handle) return null;
    const handle = engine._handle;
    const flush = last ? constants.Z_FINISH : constants.Z_NO_FLUSH;
    let offset = 0;
    let produced = 0;
    for (;;) {
      handle.writeSync(flush, input, offset, input.byteLength - offset, room, 0, room.byteLength);
      if (engine.destroyed || !engine._handle) {
        this.engine = null;
        return null;
      }
      const [roomLeft, inputLeft] = engine._writeState! as unknown as [number, number];
      const made = room.byteLength - roomLeft;
      if (made > 0 && !sink(room.subarray(0, made))) return null;
      produced += made;
      offset = input.byteLength - inputLeft;
      // A full output may hold more: go on. Otherwise the input is used up, or the stream ended early.
      if (roomLeft === 0) continue;
      return inputLeft === 0 ? produced : null;
    }
  }

  /** Releases the engine. */
  close(): void {
    this.engine?.close();
    this.engine = null;
  }
}
