// Whether a file's tail holds a ZIP end-of-central-directory record (an archive behind a prefix, as a
// self-extracting program is) is asked of every file inspect_artifact sees, native binaries included.
// The signature is found by Buffer's native search; the answer is the byte-by-byte scan's, held here
// against that scan on tails built to hold the record, near misses and none.
import { describe, expect, it } from '@jest/globals';
import { tailHasZipEnd } from '../src/detect.js';

/** The scan the search replaces: every offset from the end, backwards. */
function scanned(tail: Buffer): boolean {
  for (let i = tail.length - 22; i >= 0; i -= 1) {
    if (tail.readUInt32LE(i) === 0x06054b50 && i + 22 + tail.readUInt16LE(i + 20) === tail.length) return true;
  }
  return false;
}

/** An end record with a comment of `comment` bytes, whose stated length is `stated`. */
function endRecord(comment: number, stated = comment): Buffer {
  const record = Buffer.alloc(22 + comment, 0x41);
  record.writeUInt32LE(0x06054b50, 0);
  record.fill(0, 4, 20);
  record.writeUInt16LE(stated, 20);
  return record;
}

/** A deterministic pseudo-random byte stream. */
function noise(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed;
  for (let i = 0; i < length; i += 1) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

describe('issue 22: finding a ZIP end record in a tail', () => {
  it('should answer as the byte-by-byte scan on records, near misses, repeats and short tails', () => {
    const tails: Buffer[] = [Buffer.alloc(0), Buffer.alloc(21), endRecord(0).subarray(0, 21), endRecord(0)];
    for (const [comment, stated] of [
      [0, 0],
      [5, 5],
      [5, 4],
      [300, 300],
      [300, 301],
    ] as const) {
      const record = endRecord(comment, stated);
      tails.push(record, Buffer.concat([noise(1000, comment), record]));
      // A second signature after the real record, inside its comment, and one before it.
      const inComment = Buffer.from(record);
      if (comment >= 4) inComment.writeUInt32LE(0x06054b50, 22);
      tails.push(Buffer.concat([endRecord(2), noise(50, 7), inComment]));
    }
    // Signatures whose stated comment runs past the end or stops short of it.
    tails.push(Buffer.concat([endRecord(10, 40), noise(10, 3)]), Buffer.concat([noise(64 * 1024, 9), endRecord(0)]));
    for (let seed = 1; seed <= 40; seed += 1) {
      const body = noise(2000, seed);
      // Plant bare signatures at random places.
      for (let k = 0; k < 5; k += 1) body.writeUInt32LE(0x06054b50, (seed * 97 + k * 389) % 1978);
      tails.push(body);
    }
    const answers = tails.map((tail) => [tailHasZipEnd(tail), scanned(tail)]);
    expect(answers.filter(([fast, slow]) => fast !== slow)).toEqual([]);
    expect(answers.filter(([fast]) => fast).length).toBeGreaterThan(5);
  });
});
