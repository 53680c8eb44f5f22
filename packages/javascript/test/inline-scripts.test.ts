import { describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeJavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';

/** 1-based line and 0-based column of the first `needle` in `text`. */
function positionOf(text: string, needle: string): { line: number; column: number } {
  const offset = text.indexOf(needle);
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - (before.lastIndexOf('\n') + 1) };
}

const PAGE = `<!doctype html>
<html>
  <head><script type="application/json">{"skip": "https://json.example.net/"}</script></head>
  <body>
    <script>var k="inline-secret"; fetch("https://inline.example.org/x"); eval("2");</script>
    <script type="module">import { start } from './app.js'; start();</script>
  </body>
</html>
`;

describe('analyzeJavascriptApplication on scripts written inside HTML', () => {
  it("should list an inline script's strings, URLs, effects, dynamic code and imports as the page's", async () => {
    await withTempDir(async (tmp) => {
      writeFileSync(join(tmp, 'index.html'), PAGE);
      writeFileSync(join(tmp, 'app.js'), 'export function start() {}\n');
      const { result, coverage } = await analyzeJavascriptApplication(tmp);
      const page = 'file:index.html';
      expect(result.strings.filter((s) => s.node_id === page).map((s) => s.value)).toEqual([
        'inline-secret',
        'https://inline.example.org/x',
        '2',
        './app.js',
      ]);
      expect(result.strings.find((s) => s.value === 'inline-secret')).toMatchObject(
        positionOf(PAGE, '"inline-secret"'),
      );
      expect(result.urls).toEqual([
        {
          node_id: page,
          ...positionOf(PAGE, '"https://inline'),
          url: 'https://inline.example.org/x',
          host: 'inline.example.org',
        },
      ]);
      expect(result.hosts).toEqual(['inline.example.org']);
      expect(result.effects).toEqual([
        { node_id: page, ...positionOf(PAGE, 'fetch('), category: 'network', api: 'fetch' },
      ]);
      expect(result.dynamic_code).toEqual([{ node_id: page, ...positionOf(PAGE, 'eval('), kind: 'eval' }]);
      expect(result.edges).toContainEqual({
        from: page,
        to: 'file:app.js',
        specifier: './app.js',
        kind: 'import',
        target_kind: 'module',
        ...positionOf(PAGE, 'import {'),
      });
      // The page is no JavaScript module of its own.
      expect(result.modules.map((m) => m.node_id)).toEqual(['file:app.js']);
      expect(coverage).toEqual({ status: 'complete', reasons: [] });
    });
  });

  it('should make the parse partial and say which inline script could not be parsed', async () => {
    await withTempDir(async (tmp) => {
      writeFileSync(join(tmp, 'index.html'), '<html>\n<script>let = = 1;</script>\n</html>\n');
      const { result, coverage } = await analyzeJavascriptApplication(tmp);
      expect(coverage.status).toBe('partial');
      expect(result.phases.find((p) => p.phase === 'parse')).toEqual({
        phase: 'parse',
        status: 'partial',
        reasons: ['1 of 1 inline scripts not parsed'],
      });
      expect(result.unknowns).toContainEqual(expect.objectContaining({ scope: 'file:index.html', kind: 'unparsable' }));
    });
  });
});
