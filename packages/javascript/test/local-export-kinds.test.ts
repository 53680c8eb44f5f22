// `export { helper }` of a local declaration exports what the declaration holds: a function (with its
// length), a class or a value, as the module namespace Node.js builds shows it; so does
// `export default helper`. Node.js imports the module as the reference.
import { describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeJavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';
import { nodeExports } from './helpers/nodeExports.js';

const MODULE = [
  'function helper(a, b, c = 1) { return a + b + c; }',
  'class Shape {}',
  "const version = '1.0';",
  'const table = { a: 1 };',
  'const double = (x) => x * 2;',
  'export { helper, Shape as Figure, version, table, double };',
  'export default helper;',
  '',
].join('\n');

describe('analyzeJavascriptApplication kinds of local bindings exported by name', () => {
  it('should give each export the kind and length Node.js sees in the module namespace', async () => {
    await withTempDir(async (tmp) => {
      writeFileSync(join(tmp, 'local.mjs'), MODULE);
      const { result } = await analyzeJavascriptApplication(tmp);
      const shapes = result.modules.find((m) => m.path === 'local.mjs')!.exports;
      const listed = shapes
        .map((s) => ({ name: s.name, kind: s.value_kind, length: s.arity }))
        .sort((a, b) => (a.name < b.name ? -1 : 1));
      // The namespace lists its names sorted.
      expect(listed).toEqual(nodeExports(join(tmp, 'local.mjs')));
    });
  });
});
