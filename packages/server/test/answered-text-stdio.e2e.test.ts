// Through the real server and its SDK over a stdio pipe: a large Evidence result's frame carries the
// record, as structured content, written as the very text the result carries as its text content (the
// record's canonical JSON, members in canonical order), not serialized a second time from the record's
// objects (members in the order they were built). The SDK passes the transport a copy of the result, so
// this holds only if the frame's writer knows the result by its text, not by the object answered.
import { describe, expect, it } from '@jest/globals';
import { standInEntry } from './httpFixture.js';
import { startRawStdio } from './rawStdio.js';

describe('a large Evidence result over stdio', () => {
  it('is written with its canonical text as its structured content', async () => {
    const server = await startRawStdio(standInEntry);
    try {
      server.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'open_binary', arguments: { path: standInEntry } } })}\n`,
      );
      expect(((await server.next((m) => m['id'] === 1))['result'] as { isError?: boolean }).isError).toBeFalsy();
      // More text than a frame is written at once for (256 Ki code units).
      const args = { address: '0x401000', pseudocode_chars: 400_000 };
      server.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'analyze_function', arguments: args } })}\n`,
      );
      const answer = await server.next((m) => m['id'] === 2);
      const result = answer['result'] as {
        content: Array<{ text?: string }>;
        structuredContent: Record<string, unknown>;
      };
      const text = result.content[0]!.text!;
      expect(JSON.parse(text)).toEqual(result.structuredContent);
      const line = server.lines.find((l) => l.startsWith('{"result"') && l.includes('"id":2'))!;
      // (A boolean: on failure, the frame is too long to print.)
      expect(line.includes(`"structuredContent":${text}`)).toBe(true);
      // The record's members were built in another order than the canonical one: serialized from its
      // objects, the structured content would not have been this text.
      expect(Object.keys(result.structuredContent)[0]).toBe('analysis_profile');
    } finally {
      await server.end();
    }
  }, 60_000);
});
