// A large Evidence result carries its record twice: as structured content and, as its text content, the
// record's canonical JSON. The frame's writer puts that same text where the structured content goes
// instead of serializing the record again. What a client parses must be exactly what it was: the same
// JSON value, for stdio frames and for the pieces of an HTTP event; a value never answered is
// serialized as before. The text is kept for one record at most and only until its frame takes it, so
// that records retained for the session do not keep copies of their texts alive.
import { describe, expect, it } from '@jest/globals';
import { PassThrough } from 'node:stream';
import { canonicalJson } from '@rea/evidence';
import { answeredTextOf, rememberAnsweredText } from '../src/answeredText.js';
import { jsonInSlices } from '../src/jsonSlices.js';
import { sendLargeFramesInSlices } from '../src/largeFrames.js';

/** A record-like value whose insertion order is not the canonical one, with text JSON escapes. */
const record = () => ({
  schema_version: 2,
  normalized_result: {
    zeta: true,
    entries: Array.from({ length: 6_000 }, (_, i) => ({
      size: i,
      path: `dir "${i % 7}"\\file ${i}.js é`,
      kind: i % 2 ? 'file' : 'link',
    })),
  },
  evidence_id: `ev_${'a'.repeat(64)}`,
});

describe('a large result written with its record answered as text', () => {
  it('writes the answered text where the record goes, and the frame parses to the same message', async () => {
    const value = record();
    const text = canonicalJson(value);
    rememberAnsweredText(value, text);
    const message = { jsonrpc: '2.0', id: 9, result: { content: [{ type: 'text', text }], structuredContent: value } };
    const out = new PassThrough();
    let written = '';
    out.on('data', (chunk: Buffer) => (written += chunk.toString('utf8')));
    const transport = { send: (): Promise<void> => Promise.reject(new Error('a large frame goes through the slices')) };
    sendLargeFramesInSlices(transport, out);
    await (transport.send as (message: unknown) => Promise<void>)(message);
    const frame = written.slice(0, -1);
    expect(written.endsWith('\n')).toBe(true);
    expect(frame.endsWith(`"structuredContent":${text}}}`)).toBe(true);
    expect(JSON.parse(frame)).toEqual(JSON.parse(JSON.stringify(message)));
    // Serialized again by JSON.stringify, the record would have come in its insertion order.
    expect(JSON.stringify(value)).not.toBe(text);
    // Taken by its frame: the record no longer keeps its text alive.
    expect(answeredTextOf(value)).toBeUndefined();
  });

  it('keeps one text at most, for the last record answered', () => {
    const first = record();
    const second = record();
    rememberAnsweredText(first, 'first');
    rememberAnsweredText(second, 'second');
    expect(answeredTextOf(first)).toBeUndefined();
    expect(answeredTextOf(second)).toBe('second');
    expect(answeredTextOf(second)).toBeUndefined();
  });

  it('serializes a value that was never answered as JSON.stringify does', async () => {
    const value = record();
    expect(answeredTextOf(value)).toBeUndefined();
    const message = { result: { content: [{ type: 'text', text: 'x'.repeat(300_000) }], structuredContent: value } };
    expect((await jsonInSlices(message, answeredTextOf)).join('')).toBe(JSON.stringify(message));
  });
});
