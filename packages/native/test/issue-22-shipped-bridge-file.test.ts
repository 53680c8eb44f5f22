import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { shippedBridgeFile } from '@rea/native/core';

describe('issue 22: shippedBridgeFile finds the bridge file a provider package ships, by its name', () => {
  // The Ghidra and Hopper providers' own tests find their real scripts through it (bridgeScript.test.ts).
  it('should find a file the named package ships, from the module given', () => {
    const path = shippedBridgeFile(import.meta.url, '@rea/native', 'package.json', 'stand-in');
    expect((JSON.parse(readFileSync(path, 'utf8')) as { name: string }).name).toBe('@rea/native');
  });

  it('should refuse a file the package lacks as provider_unavailable, saying to reinstall', () => {
    let error: unknown = null;
    try {
      shippedBridgeFile(import.meta.url, '@rea/native', 'scripts/no-such-bridge.py', 'stand-in');
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({
      code: 'provider_unavailable',
      details: { provider_id: 'stand-in', reason: 'bridge-script-missing', path: 'scripts/no-such-bridge.py' },
    });
    expect((error as { remediation: string }).remediation).toContain('@rea/native');
  });

  it('should refuse a package that cannot be found the same way', () => {
    expect(() => shippedBridgeFile(import.meta.url, '@rea/no-such-provider', 'scripts', 'none')).toThrow(
      expect.objectContaining({ code: 'provider_unavailable' }),
    );
  });
});
