// How the class tools read what they are asked for: a regular expression finds a class by its dotted
// name as by its descriptor; a descriptor without its closing semicolon names the class it would name
// with one; a reference target that names nothing (a method or field with neither class nor name, a
// string with no value, a class with no class) is refused with what to add, instead of matching every
// use of its kind or none; a missing path and an empty file are called what they are. On the okhttp DEX of Debian's androguard samples, counted against dexdump.
import { describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withTempDir } from '@rea/test-helpers';
import {
  inspectAndroidClassTool,
  inspectAndroidPackageTool,
  searchAndroidClassesTool,
  traceAndroidReferencesTool,
} from '../src/index.js';
import { SAMPLES, output, runTool } from './support.js';

const DEX = `${SAMPLES}/tests/okhttp.d8.038.dex`;
type Search = { total: number; classes: { descriptor: string }[] };

describe('names and reference targets', () => {
  it('should find a class by a regular expression on its dotted name or its descriptor', async () => {
    const expected = output('dexdump', [DEX]).match(/Class descriptor\s+: 'Lokhttp3\/Cache;'/g)!.length;
    expect(expected).toBe(1);
    for (const query of ['^okhttp3\\.Cache$', '^Lokhttp3/Cache;$']) {
      const { normalized_result } = await runTool<Search>(searchAndroidClassesTool, {
        path: DEX,
        query,
        match: 'regex',
      });
      expect([query, normalized_result.classes.map((c) => c.descriptor)]).toEqual([query, ['Lokhttp3/Cache;']]);
    }
  });

  it('should read a descriptor without its semicolon as the class it names', async () => {
    const withIt = await runTool<{ descriptor: string }>(inspectAndroidClassTool, {
      path: DEX,
      class: 'Lokhttp3/Cache;',
    });
    const without = await runTool<{ descriptor: string }>(inspectAndroidClassTool, {
      path: DEX,
      class: 'Lokhttp3/Cache',
    });
    expect(without.normalized_result).toEqual(withIt.normalized_result);
  });

  it.each([
    [{ kind: 'method' }, 'class or name of the method'],
    [{ kind: 'field', descriptor: 'I' }, 'class or name of the field'],
    [{ kind: 'string' }, 'value'],
    [{ kind: 'class' }, 'class'],
  ])('should refuse the target %j, saying it needs %s', async (target, needed) => {
    await expect(runTool(traceAndroidReferencesTool, { path: DEX, target })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining(`needs ${needed}`),
      details: { reason: 'incomplete-target' },
    });
  });

  it('should call a missing path missing and an empty file empty, with advice that fits', async () => {
    await withTempDir(async (tmp) => {
      await expect(runTool(searchAndroidClassesTool, { path: join(tmp, 'gone.apk') })).rejects.toMatchObject({
        code: 'not_found',
        remediation: expect.stringContaining('Check the path'),
      });
      const empty = join(tmp, 'empty.apk');
      writeFileSync(empty, '');
      for (const tool of [searchAndroidClassesTool, inspectAndroidPackageTool])
        await expect(runTool(tool, { path: empty })).rejects.toMatchObject({
          code: 'unsupported_target',
          message: expect.stringContaining('is an empty file'),
        });
    });
  });

  it('should trace a method named without its class in every class, as dexdump lists its calls', async () => {
    const dump = output('dexdump', ['-d', DEX]);
    const calls = dump.match(/invoke-\S+ \{[^}]*\}, L[^;]+;\.toString:\(\)Ljava\/lang\/String;/g)!.length;
    const { normalized_result } = await runTool<{ total: number }>(traceAndroidReferencesTool, {
      path: DEX,
      target: { kind: 'method', name: 'toString', descriptor: '()Ljava/lang/String;' },
    });
    expect(normalized_result.total).toBe(calls);
  });
});
