import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js');

// Runs the built package in a fresh Node process and counts the engine modules loaded at each step.
const script = `
import { createRequire } from 'node:module';
const Module = createRequire(import.meta.url)('node:module');
const engine = () => Object.keys(Module._cache).filter((k) => k.includes('capstone-js')).length;
const { createCapstoneProvider } = await import(${JSON.stringify(dist)});
const provider = createCapstoneProvider();
const afterCreate = engine();
const probe = await provider.probe();
process.stdout.write(JSON.stringify({ afterCreate, afterProbe: engine(), probe }));
`;

describe('built package', () => {
  it('loads the WebAssembly engine only when first probed or opened', () => {
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
    expect(out.afterCreate).toBe(0);
    expect(out.afterProbe).toBe(1);
    expect(out.probe).toMatchObject({ status: 'ready', version: expect.stringMatching(/^\d+\.\d+$/) });
  });
});
