// A method's try blocks and handlers, and the methods an invoke-custom reaches: every try block of every
// method of a real DEX file (okhttp, Debian's androguard samples) against dexdump's "catches" listing,
// and inspect_android_method listing the bootstrap method and the lambda body an invoke-custom links, as
// trace_android_references attributes them to the method.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { DexFile, inspectAndroidMethodTool, traceAndroidReferencesTool } from '../src/index.js';
import { SAMPLES, output, runTool } from './support.js';

const DEX = `${SAMPLES}/tests/okhttp.d8.038.dex`;

/** dexdump -d's try blocks, by `class->name(type)`: `start-end type->handler|…` per block, in order. */
function dexdumpTries(path: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let cls = '';
  let method = '';
  let name = '';
  let blocks: string[] | null = null;
  for (const line of output('dexdump', ['-d', path]).split('\n')) {
    let m: RegExpExecArray | null;
    if ((m = /^ {2}Class descriptor {2}: '(.*)'$/.exec(line))) cls = m[1]!;
    else if ((m = /^ {6}name {10}: '(.*)'$/.exec(line))) name = m[1]!;
    else if ((m = /^ {6}type {10}: '(.*)'$/.exec(line))) method = `${cls}->${name}${m[1]}`;
    else if ((m = /^ {6}catches {7}: (\d+)$/.exec(line))) {
      blocks = [];
      if (Number(m[1]) > 0) out.set(method, blocks);
    } else if (blocks !== null && (m = /^ {8}0x([0-9a-f]{4}) - 0x([0-9a-f]{4})$/.exec(line))) {
      blocks.push(`${parseInt(m[1]!, 16)}-${parseInt(m[2]!, 16)}`);
    } else if (blocks !== null && (m = /^ {10}(\S+) -> 0x([0-9a-f]{4})$/.exec(line))) {
      blocks[blocks.length - 1] += ` ${m[1] === '<any>' ? '*' : m[1]}->${parseInt(m[2]!, 16)}`;
    } else if (!/^ {8}/.test(line)) blocks = null;
  }
  return out;
}

describe('try blocks and the methods an invoke-custom reaches', () => {
  it('should read every try block and handler of a DEX file as dexdump does', () => {
    const expected = dexdumpTries(DEX);
    expect(expected.size).toBeGreaterThan(100);
    const dex = new DexFile(readFileSync(DEX));
    const got = new Map<string, string[]>();
    for (let i = 0; i < dex.classDefs.size; i++) {
      const data = dex.classData(dex.classDef(i).classDataOff);
      for (const m of [...data.directMethods, ...data.virtualMethods]) {
        if (m.codeOff === 0) continue;
        const tries = dex.tries(m.codeOff);
        if (tries.length === 0) continue;
        const ref = dex.method(m.index);
        got.set(
          `${ref.className}->${ref.name}(${ref.proto.parameters.join('')})${ref.proto.returnType}`,
          tries.map((t) => `${t.start}-${t.end}${t.catches.map((c) => ` ${c.type ?? '*'}->${c.handler}`).join('')}`),
        );
      }
    }
    expect(got).toEqual(expected);
  });

  it('should give the try blocks in inspect_android_method, and count caught types among its types', async () => {
    const { normalized_result } = await runTool<{
      tries: number;
      try_blocks: { start: number; end: number; catches: { type: string | null; handler: number }[] }[];
      types: string[];
    }>(inspectAndroidMethodTool, { path: DEX, class: 'okhttp3.Cookie$Companion', method: 'parseMaxAge' });
    const expected = dexdumpTries(DEX).get('Lokhttp3/Cookie$Companion;->parseMaxAge(Ljava/lang/String;)J')!;
    expect(normalized_result.try_blocks).toHaveLength(normalized_result.tries);
    expect(
      normalized_result.try_blocks.map(
        (t) => `${t.start}-${t.end}${t.catches.map((c) => ` ${c.type ?? '*'}->${c.handler}`).join('')}`,
      ),
    ).toEqual(expected);
    expect(normalized_result.types).toContain('Ljava/lang/NumberFormatException;');
  });

  it('should list the methods an invoke-custom reaches, as trace_android_references attributes them', async () => {
    const dex = `${SAMPLES}/tests/okhttp.dx.038.dex`;
    const { normalized_result } = await runTool<{ methods: string[] }>(inspectAndroidMethodTool, {
      path: dex,
      class: 'okhttp3.internal.Util',
      method: 'threadFactory',
    });
    const traced = await runTool<{ sites: { class: string; method: string; target: string }[] }>(
      traceAndroidReferencesTool,
      { path: dex, target: { kind: 'method', class: 'java.lang.invoke.LambdaMetafactory', name: 'metafactory' } },
    );
    const here = traced.normalized_result.sites.filter(
      (s) => s.class === 'Lokhttp3/internal/Util;' && s.method.startsWith('threadFactory('),
    );
    expect(here.length).toBeGreaterThan(0);
    const metafactory = normalized_result.methods.find((m) =>
      m.startsWith('Ljava/lang/invoke/LambdaMetafactory;->metafactory('),
    );
    expect(metafactory).toBeDefined();
    expect(
      normalized_result.methods.some((m) => /^Lokhttp3\/internal\/Util;->lambda\$threadFactory\$0\(/.test(m)),
    ).toBe(true);
  });
});
