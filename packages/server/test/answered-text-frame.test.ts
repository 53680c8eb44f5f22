// A large Evidence result carries its record twice: as structured content and, as its text content, the
// record's canonical JSON. The frame's writer puts that same text where the structured content goes
// instead of serializing the record again. What a client parses must be exactly what it was: the same
// JSON value, for stdio frames and for the pieces of an HTTP event; a value never answered is
// serialized as before. The SDK hands the transport a copy of the answered result, so the result is
// known by its text content. The text is kept for one record at most and only until its frame takes
// it, so that records retained for the session do not keep copies of their texts alive. Through the
// real server and its SDK over a stdio pipe, see answered-text-stdio.e2e.test.ts.
import { describe, expect, it } from '@jest/globals';
import { PassThrough } from 'node:stream';
import { canonicalJson } from '@rea/evidence';
import { answeredTextIn, rememberAnsweredText } from '../src/answeredText.js';
import { jsonInSlices } from './pieces.js';
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
    // As the SDK passes it on: a copy of the result, the structured content a copy of the record.
    const message = {
      jsonrpc: '2.0',
      id: 9,
      result: { content: [{ type: 'text', text }], structuredContent: { ...value } },
    };
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
    // Taken by its frame: the text is no longer kept.
    expect(answeredTextIn(message)(message.result.structuredContent)).toBeUndefined();
  });

  it('keeps one text at most, for the last record answered, and gives it for its own result only', () => {
    const first = { ...record(), evidence_id: `ev_${'1'.repeat(64)}` };
    const second = { ...record(), evidence_id: `ev_${'2'.repeat(64)}` };
    const resultOf = (value: object, text: string) => ({
      result: { content: [{ type: 'text', text }], structuredContent: value },
    });
    rememberAnsweredText(first, 'first');
    rememberAnsweredText(second, 'second');
    const firstMessage = resultOf(first, 'first');
    expect(answeredTextIn(firstMessage)(first)).toBeUndefined();
    // Another record's result with the same text, or this record's result with another text, is not it.
    expect(answeredTextIn(resultOf(first, 'second'))(first)).toBeUndefined();
    expect(answeredTextIn(resultOf(second, 'other'))(second)).toBeUndefined();
    const secondMessage = resultOf(second, 'second');
    const known = answeredTextIn(secondMessage);
    expect(known(second)).toBe('second');
    // Only the result's structured content is written as the text, nothing else of the message.
    expect(known(secondMessage.result)).toBeUndefined();
    expect(answeredTextIn(secondMessage)(second)).toBeUndefined();
  });

  it('serializes a value that was never answered as JSON.stringify does', async () => {
    const value = record();
    const message = { result: { content: [{ type: 'text', text: 'x'.repeat(300_000) }], structuredContent: value } };
    expect((await jsonInSlices(message, answeredTextIn(message))).join('')).toBe(JSON.stringify(message));
  });
});
