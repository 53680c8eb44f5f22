/*
 * A provider backed by an external engine (Ghidra, Hopper) is created and probed with every `rea analyze`
 * of a native program, whichever engine opens it: that must not build the bridge's session and protocol
 * schemas. A child Node.js process loads the built packages with a module hook that lists every module
 * it loads.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';

const packageDirectory = join(dirname(fileURLToPath(import.meta.url)), '..');
const directory = mkdtempSync(join(tmpdir(), 'rea-bridge-lazy-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Runs `body` (an ES module's text) in this package's directory; returns the modules it loaded, in order. */
function loadedBy(body: string): { loaded: string[]; output: string } {
  const list = join(directory, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  const hooks = join(directory, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';\n` +
      `export async function load(url, context, next) { appendFileSync(${JSON.stringify(list)}, url + '\\n'); return next(url, context); }\n`,
  );
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`file://${hooks}`)});`;
  // Evaluated as an ES module whose imports resolve from this package's directory (its own name included).
  const result = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(register)}`, '--input-type=module', '--eval', body],
    { cwd: packageDirectory, encoding: 'utf8', timeout: 60_000 },
  );
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return { loaded: readFileSync(list, 'utf8').trim().split('\n'), output: result.stdout };
}

const BRIDGE_INTERNALS = /\/dist\/bridge\/(?:session|protocol|channel|external)\.js$/;

describe('issue 22: creating and probing a bridge provider loads no bridge session', () => {
  it('should create and probe a provider from @rea/native/core without loading the session or protocol', () => {
    const { loaded, output } = loadedBy(`
      import { BRIDGE_PROTOCOL, createBridgeProvider } from '@rea/native/core';
      const provider = createBridgeProvider({
        id: 'stand-in', name: 'Stand-in engine', version: '0.0.0', capabilities: [], formats: ['elf'],
        discover: () => ({ status: 'ready', installation: { version: '1.0' } }),
        probeDetails: () => ({}),
        session: () => { throw new Error('not opened here'); },
      });
      const probe = await provider.probe();
      console.log(JSON.stringify({ protocol: BRIDGE_PROTOCOL, status: probe.status, version: probe.version }));
    `);
    expect(JSON.parse(output)).toEqual({ protocol: 'rea-bridge/1', status: 'ready', version: '1.0' });
    expect(loaded.some((url) => url.endsWith('/dist/core.js'))).toBe(true);
    expect(loaded.filter((url) => BRIDGE_INTERNALS.test(url))).toEqual([]);
  });

  it('should see the session and protocol load when the bridge entry is imported (the hook sees them)', () => {
    const { loaded } = loadedBy(`import '@rea/native/bridge';`);
    expect(loaded.some((url) => url.endsWith('/dist/bridge/session.js'))).toBe(true);
    expect(loaded.some((url) => url.endsWith('/dist/bridge/protocol.js'))).toBe(true);
  });
});
