import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ReaError } from '@rea/evidence';

/** Where a browser tool connects: a Chromium REA owns for the call, or a loopback DevTools endpoint. */
export type Endpoint = { kind: 'owned' } | { kind: 'external'; host: string; port: number; label: string };

const RULE =
  'Use "owned" (a headless Chromium REA starts), or a DevTools endpoint on this machine: 127.0.0.0/8, ::1, or localhost, e.g. http://127.0.0.1:9222.';

/** The spellings an endpoint may take. */
const ACCEPTED = ['owned', 'http://<host>:<port>', 'ws://<host>:<port>', '<host>:<port>'];

function invalid(value: string, problem: string): ReaError {
  return new ReaError(
    'invalid_request',
    `Endpoint "${value}" is not a DevTools endpoint (${problem}): pass "owned", or http://, ws:// or host:port with a loopback host and a port, such as http://127.0.0.1:9222.`,
    {
      details: { reason: 'invalid-endpoint', endpoint: value, accepted: ACCEPTED },
      remediation: RULE,
    },
  );
}

function denied(value: string, host: string, why: string): ReaError {
  return new ReaError(
    'access_denied',
    `Endpoint host ${host} is not loopback (${why}); REA connects only to loopback DevTools endpoints.`,
    {
      details: { reason: 'non-loopback-endpoint', endpoint: value, host },
      remediation: RULE,
    },
  );
}

/** True for an address in 127.0.0.0/8 or ::1 (also IPv4-mapped 127.x). */
export function isLoopbackAddress(address: string): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(v4) === 4) return v4.split('.')[0] === '127';
  return isIP(address) === 6 && /^(0{0,4}:){7}0{0,3}1$|^::1$/.test(address);
}

/**
 * Parses and judges an endpoint without a name lookup: `"owned"`, or `http://`, `ws://` or
 * `host:port` whose host is a loopback address or a name of the `localhost` family (whose addresses
 * {@link resolveEndpoint} checks). `invalid_request` (`details.reason: "invalid-endpoint"`, with the
 * `accepted` spellings) for what is not an endpoint, `access_denied` naming any other host.
 */
export function parseEndpoint(value: string): Endpoint {
  if (value === 'owned') return { kind: 'owned' };
  const text = /^[a-z]+:\/\//i.test(value) ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(value, 'it is not a URL or host:port');
  }
  if (!['http:', 'ws:'].includes(url.protocol)) throw invalid(value, `it uses ${url.protocol}, not http: or ws:`);
  if (url.port === '') throw invalid(value, 'it names no port');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) {
    if (!isLoopbackAddress(host)) throw denied(value, host, 'not in 127.0.0.0/8 or ::1');
  } else if (host !== 'localhost' && !host.endsWith('.localhost'))
    throw denied(value, host, 'a name other than localhost');
  return { kind: 'external', host, port: Number(url.port), label: `${url.protocol}//${url.host}` };
}

/**
 * {@link parseEndpoint}, then, for a name, its lookup before any socket opens: `localhost` (and names
 * like it) must resolve only to loopback addresses, `access_denied` names the host otherwise.
 */
export async function resolveEndpoint(value: string): Promise<Endpoint> {
  const endpoint = parseEndpoint(value);
  if (endpoint.kind === 'owned' || isIP(endpoint.host) !== 0) return endpoint;
  const { host } = endpoint;
  const addresses = await lookup(host, { all: true }).catch(() => []);
  const outside = addresses.filter((a) => !isLoopbackAddress(a.address)).map((a) => a.address);
  if (addresses.length === 0) throw denied(value, host, 'it does not resolve');
  if (outside.length > 0) throw denied(value, host, `it resolves to ${outside.join(', ')}`);
  return endpoint;
}
