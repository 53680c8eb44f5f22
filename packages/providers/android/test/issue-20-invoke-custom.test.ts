// invoke-custom call sites (DEX 038+) traced through call_site_ids and method handles to the bootstrap
// method and to the method handles among the link arguments (a lambda's body), checked against what
// `dexdump -d` prints for a real DEX with lambdas from androguard's samples.
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectAndroidMethodTool, traceAndroidReferencesTool } from '../src/index.js';
import { SAMPLES, output, runTool, resealDex } from './support.js';

const DEX = `${SAMPLES}/tests/okhttp.dx.038.dex`;
const dump = output('dexdump', ['-d', DEX]);

/** dexdump's method handles: index → `Lclass;->name`. */
const handles = new Map(
  [...dump.matchAll(/^Method handle #(\d+):\n {2}type +: \S+\n {2}target +: (\S+) (\S+)$/gm)].map((m) => [
    Number(m[1]),
    `${m[2]}->${m[3]}`,
  ]),
);
/** dexdump's call sites: index → the method handle of each MethodHandle link argument, in order. */
const callSites = new Map(
  dump
    .split(/^Call site #/m)
    .slice(1)
    .map((block) => [
      Number(/^(\d+):/.exec(block)![1]),
      [...block.matchAll(/^ {2}link_argument\[(\d+)\] : (\d+) \(MethodHandle\)$/gm)].map((m) => ({
        position: Number(m[1]),
        handle: handles.get(Number(m[2]))!,
      })),
    ]),
);
/**
 * dexdump's method handles in full: index → `type Lclass;->name(params)return`, with the method's own
 * prototype (dexdump's target_type of an instance handle starts with the receiver, dropped here).
 */
const handleTexts = new Map(
  [
    ...dump.matchAll(
      /^Method handle #(\d+):\n {2}type +: (\S+)\n {2}target +: (\S+) (\S+)\n {2}target_type : (\S+)$/gm,
    ),
  ].map(([, index, type, cls, name, proto]) => {
    const receiver = /^invoke-(?:instance|interface|direct)$/.test(type!) && proto!.startsWith(`(${cls}`);
    return [index!, `${type} ${cls}->${name}${receiver ? `(${proto!.slice(cls!.length + 1)}` : proto}`];
  }),
);
/** dexdump's call sites as text: index → each link argument as a listing writes it. */
const siteArguments = new Map(
  dump
    .split(/^Call site #/m)
    .slice(1)
    .map((block) => [
      Number(/^(\d+):/.exec(block)![1]),
      [...block.matchAll(/^ {2}link_argument\[\d+\] : (.*) \((\w+)\)$/gm)].map(([, value, kind]) =>
        kind === 'MethodHandle' ? handleTexts.get(value!)! : kind === 'String' ? JSON.stringify(value) : value!,
      ),
    ]),
);
/** Every invoke-custom in dexdump's listing, with the method holding it. */
const invokes: { holder: string; offset: number; site: number; text: string }[] = [];
{
  let holder = '';
  for (const line of dump.split('\n')) {
    const method = /\|\[[0-9a-f]+\] (.+)\.([^.]+):(\(.*)$/.exec(line);
    if (method !== null) holder = `L${method[1]!.replaceAll('.', '/')}; ${method[2]}${method[3]}`;
    const invoke = /\|([0-9a-f]{4}): (invoke-custom(?:\/range)? .*call_site@([0-9a-f]+))/.exec(line);
    if (invoke !== null)
      invokes.push({ holder, offset: parseInt(invoke[1]!, 16), site: parseInt(invoke[3]!, 16), text: invoke[2]! });
  }
}

interface Site {
  class: string;
  method: string;
  offset: number;
  instruction: string;
  target: string;
}
async function trace(handle: string): Promise<string[]> {
  const [cls, name] = handle.split('->') as [string, string];
  const { normalized_result } = await runTool<{ sites: Site[] }>(traceAndroidReferencesTool, {
    path: DEX,
    target: { kind: 'method', class: cls, name },
    limit: 2000,
  });
  return normalized_result.sites
    .filter((s) => s.instruction.startsWith('invoke-custom'))
    .map(
      (s) =>
        `${s.class} ${s.method} ${s.offset} ${/\((bootstrap|argument) of call_site@(\d+)\)$/.exec(s.target)?.slice(1).join(' ')}`,
    )
    .sort();
}

describe('invoke-custom in trace_android_references', () => {
  it('finds each call site from its bootstrap method and from the method handles among its arguments, as dexdump lists them', async () => {
    expect(invokes.length).toBeGreaterThan(0);
    const expected = new Map<string, string[]>();
    for (const { holder, offset, site } of invokes) {
      for (const { position, handle } of callSites.get(site)!) {
        const line = `${holder} ${offset} ${position === 0 ? 'bootstrap' : 'argument'} ${site}`;
        expected.set(handle, [...(expected.get(handle) ?? []), line]);
      }
    }
    expect(expected.get('Ljava/lang/invoke/LambdaMetafactory;->metafactory')).toHaveLength(invokes.length);
    expect(expected.size).toBeGreaterThan(1);
    for (const [handle, lines] of expected) expect(await trace(handle)).toEqual(lines.sort());
  });

  it('lists each invoke-custom with its call site resolved to the link arguments dexdump prints', async () => {
    expect(invokes.length).toBeGreaterThan(0);
    for (const { holder, offset, site, text } of invokes) {
      const [cls, rest] = holder.split(' ') as [string, string];
      const paren = rest.indexOf('(');
      const { normalized_result } = await runTool<{ instructions: { offset: number; text: string }[] }>(
        inspectAndroidMethodTool,
        { path: DEX, class: cls, method: rest.slice(0, paren), descriptor: rest.slice(paren) },
      );
      const listed = normalized_result.instructions.find((i) => i.offset === offset)?.text;
      expect(listed).toBe(`${text}(${siteArguments.get(site)!.join(', ')})`);
    }
    expect(invokes.some(({ site }) => siteArguments.get(site)!.length > 4)).toBe(true);
  });

  it('reports a call site whose encoded array lies outside the file as a limitation, tracing the rest', async () => {
    const bytes = readFileSync(DEX);
    const map = bytes.readUInt32LE(52);
    let ids = -1;
    for (let i = 0; i < bytes.readUInt32LE(map); i++)
      if (bytes.readUInt16LE(map + 4 + i * 12) === 0x0007) ids = bytes.readUInt32LE(map + 4 + i * 12 + 8);
    expect(ids).toBeGreaterThan(0);
    bytes.writeUInt32LE(0xfffffff0, ids); // call site 0's call_site_off
    const dir = mkdtempSync(join(tmpdir(), 'rea-android-callsite-'));
    try {
      const path = join(dir, 'bad.dex');
      writeFileSync(path, resealDex(bytes));
      const { normalized_result, limitations, coverage } = await runTool<{ sites: Site[] }>(
        traceAndroidReferencesTool,
        {
          path,
          target: { kind: 'method', class: 'java.lang.invoke.LambdaMetafactory', name: 'metafactory' },
        },
      );
      const sites = invokes.filter((i) => i.site !== 0).length;
      expect(normalized_result.sites).toHaveLength(sites);
      expect(limitations.map((l) => l.kind)).toContain('call-site-unreadable');
      expect(coverage.status).toBe('partial');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
