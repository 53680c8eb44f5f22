// `module.exports = …` replaces the object a CommonJS module exports: names put on `exports` before it
// are not exported, nor are names put on `exports` after it (that is still the old object), unless
// `exports = module.exports = …` points `exports` at the new one. Node.js itself is the reference: each
// module is also required, and its own keys are what the analysis must list.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeJavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';

const MODULES: Array<[string, string]> = [
  ['reassigned', 'exports.before = 1;\nmodule.exports = { kept: 2 };\nexports.lost = 3;\nmodule.exports.added = 4;\n'],
  ['rebound', 'exports.before = 1;\nexports = module.exports = { kept: 2 };\nexports.after = 3;\n'],
  ['plain', 'exports.one = 1;\nmodule.exports.two = function two(a, b) {\n  return a + b;\n};\n'],
  // Which branch runs is not known statically: both are listed, as before.
  ['conditional', 'if (process.env.X) {\n  module.exports = { a: 1 };\n} else {\n  module.exports = { b: 2 };\n}\n'],
];

describe('CommonJS exports after module.exports is reassigned', () => {
  it.each(MODULES)('should list what Node.js exports for the %s module', async (name, source) => {
    await withTempDir(async (dir) => {
      const file = join(dir, `${name}.js`);
      writeFileSync(file, source);
      const { result } = await analyzeJavascriptApplication(file);
      const listed = result.modules.flatMap((m) => m.exports.map((e) => e.name));
      if (name === 'conditional') {
        expect(listed).toEqual(['a', 'b']);
        return;
      }
      const reference = JSON.parse(
        execFileSync(
          process.execPath,
          ['-e', `console.log(JSON.stringify(Object.keys(require(${JSON.stringify(file)}))))`],
          {
            encoding: 'utf8',
          },
        ),
      ) as string[];
      expect(listed).toEqual(reference);
    });
  });
});
