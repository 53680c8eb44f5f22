import { describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { isReaError } from '@rea/evidence';
import {
  findChrome,
  inspectWebPageTool,
  isLoopbackAddress,
  listBrowserTargetsTool,
  resolveEndpoint,
} from '@rea/provider-browser';
import { withTempDir } from '@rea/test-helpers';
import { call } from './support.js';

async function codeOf(promise: Promise<unknown>): Promise<string | null> {
  try {
    await promise;
    return null;
  } catch (error) {
    return isReaError(error) ? error.code : `untyped: ${String(error)}`;
  }
}

describe('endpoint rules', () => {
  it('should accept owned and loopback endpoints', async () => {
    await expect(resolveEndpoint('owned')).resolves.toEqual({ kind: 'owned' });
    await expect(resolveEndpoint('http://127.0.0.1:9222')).resolves.toMatchObject({ host: '127.0.0.1', port: 9222 });
    await expect(resolveEndpoint('127.3.4.5:9222')).resolves.toMatchObject({ host: '127.3.4.5' });
    await expect(resolveEndpoint('ws://[::1]:9222')).resolves.toMatchObject({ host: '::1' });
    expect(isLoopbackAddress('::ffff:127.0.0.1')).toBe(true);
    expect(isLoopbackAddress('128.0.0.1')).toBe(false);
  });

  it('should refuse a non-loopback host with access_denied naming it, before any connection', async () => {
    // A listener on a routable name would never be reached: the refusal happens before a socket opens.
    for (const endpoint of [
      'http://10.0.0.1:9222',
      'http://example.com:9222',
      '192.168.1.2:9222',
      'ws://[fe80::1]:9222',
    ]) {
      const { error } = await call(listBrowserTargetsTool, { endpoint });
      expect(isReaError(error) && error.code).toBe('access_denied');
      expect((error as Error).message).toContain(
        new URL(endpoint.includes('//') ? endpoint : `http://${endpoint}`).hostname.replace(/^\[|\]$/g, ''),
      );
    }
  });

  it('should refuse what is not an endpoint with invalid_request', async () => {
    expect(await codeOf(resolveEndpoint('https://127.0.0.1:9222'))).toBe('invalid_request');
    expect(await codeOf(resolveEndpoint('http://127.0.0.1'))).toBe('invalid_request');
  });

  it('should report a closed endpoint as target_unavailable', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const { error } = await call(listBrowserTargetsTool, { endpoint: `http://127.0.0.1:${port}` });
    expect(isReaError(error) && error.code).toBe('target_unavailable');
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
  });

  it('should refuse a page request that does not name its page', async () => {
    expect((await call(inspectWebPageTool, { endpoint: 'owned' })).error).toMatchObject({ code: 'invalid_request' });
    expect(
      (await call(inspectWebPageTool, { endpoint: 'http://127.0.0.1:9', url: 'http://127.0.0.1/' })).error,
    ).toMatchObject({
      code: 'invalid_request',
    });
  });

  it('should answer capability_unavailable with the remedy when no browser is found', async () => {
    await withTempDir(async (dir) => {
      expect(() => findChrome(null, dir)).toThrow(expect.objectContaining({ code: 'capability_unavailable' }));
      expect(() => findChrome(`${dir}/missing-chrome`, dir)).toThrow(
        expect.objectContaining({ code: 'capability_unavailable' }),
      );
      try {
        findChrome(null, dir);
      } catch (error) {
        expect(isReaError(error) && error.remediation).toContain('REA_CHROME_PATH');
      }
    });
  });
});
