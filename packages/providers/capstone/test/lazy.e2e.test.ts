import { expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileFixture, skipUnless, toolsMissing } from '@rea/test-helpers';
import { FIXTURES } from './support.js';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js');

// Runs the built package in a fresh Node process and counts the WebAssembly instances it made (the
// engine is the only one; its module is compiled on a worker thread, so instances are what this
// thread sees of a load) at each step: created, probed, opened (an x86-64 program the fast reader
// measures whole), and asked for a listing.
const script = (target: string) => `
import { statSync } from 'node:fs';
let instances = 0;
for (const name of ['instantiate', 'instantiateStreaming']) {
  const original = WebAssembly[name];
  WebAssembly[name] = (...args) => {
    instances += 1;
    return original.call(WebAssembly, ...args);
  };
}
const NativeInstance = WebAssembly.Instance;
WebAssembly.Instance = function (...args) { instances += 1; return new NativeInstance(...args); };
WebAssembly.Instance.prototype = NativeInstance.prototype;
const engine = () => instances;
const { createCapstoneProvider } = await import(${JSON.stringify(dist)});
const provider = createCapstoneProvider();
const afterCreate = engine();
const probe = await provider.probe();
const afterProbe = engine();
const signal = new AbortController().signal;
const path = ${JSON.stringify(target)};
const session = await provider.open({ path, format: 'elf', architecture: 'x86_64', sha256: '0'.repeat(64), size: statSync(path).size }, { signal });
const afterOpen = engine();
const main = await session.session.addressOf('main', signal);
const listing = await session.session.instructions(main, { offset: 0, limit: 3 }, signal);
const afterListing = engine();
await session.close(signal);
process.stdout.write(JSON.stringify({ afterCreate, afterProbe, afterOpen, afterListing, probe, listing, version: session.provider.version }));
`;

skipUnless(toolsMissing('gcc'))('built package', () => {
  it('loads the WebAssembly engine only when a decode needs Capstone (a listing here)', () => {
    const target = compileFixture({
      source: join(FIXTURES, 'sample.c'),
      compiler: 'gcc',
      args: ['-O2', '-g', '-fno-inline'],
      output: 'sample-x64',
    });
    const out = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', script(target)], { encoding: 'utf8' }),
    );
    expect(out.afterCreate).toBe(0);
    expect(out.afterProbe).toBe(0);
    expect(out.probe).toMatchObject({ status: 'ready', version: expect.stringMatching(/^\d+\.\d+$/) });
    expect(out.afterOpen).toBe(0);
    expect(out.afterListing).toBe(1);
    expect(out.listing.items).toHaveLength(3);
    expect(out.listing.items[0].mnemonic).toMatch(/^[a-z]/);
  });
});
