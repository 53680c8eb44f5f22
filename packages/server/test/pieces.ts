// The server's piece writers driven with whole lists, for tests: what writeJsonInSlices gives for a
// value, collected; and a list of pieces put through chunkedWriter, as a frame's writer puts them.
import type { Writable } from 'node:stream';
import { chunkedWriter } from '../src/chunkedWrite.js';
import { writeJsonInSlices } from '../src/jsonSlices.js';

/** The pieces {@link writeJsonInSlices} writes for `value`, collected. */
export async function jsonInSlices(
  value: unknown,
  knownText?: (node: object) => string | undefined,
): Promise<string[]> {
  const pieces: string[] = [];
  await writeJsonInSlices(
    value,
    (piece) => {
      pieces.push(piece);
      return undefined;
    },
    knownText,
  );
  return pieces;
}

/** Writes `pieces` to `stream` through {@link chunkedWriter}, awaiting each as a frame's writer does. */
export async function writeInChunks(stream: Writable, pieces: readonly string[]): Promise<void> {
  const writer = chunkedWriter(stream);
  for (const piece of pieces) await writer.put(piece);
  await writer.end();
}
