import { attribute, parseBinaryXml } from '../format/axml.js';
import type { XmlElement } from '../format/axml.js';
import { parseProtoXml } from '../format/protoXml.js';

/** One base-config or domain-config of a network security configuration. */
export interface NetworkSecurityScope {
  domains: { name: string; include_subdomains: boolean }[];
  cleartext_permitted: boolean | null;
  trust_anchors: string[];
  pins: number;
}

/** A decoded network security configuration (res/xml/…). */
export interface NetworkSecurityConfig {
  path: string;
  base: NetworkSecurityScope | null;
  domains: NetworkSecurityScope[];
  debug_overrides: boolean;
}

const flag = (e: XmlElement, name: string): boolean | null => {
  const text = attribute(e, name)?.text;
  return text === 'true' ? true : text === 'false' ? false : null;
};

function scope(e: XmlElement): NetworkSecurityScope {
  return {
    domains: e.children
      .filter((c) => c.name === 'domain')
      .map((c) => ({ name: c.text.trim(), include_subdomains: flag(c, 'includeSubdomains') ?? false })),
    cleartext_permitted: flag(e, 'cleartextTrafficPermitted'),
    trust_anchors: e.children
      .filter((c) => c.name === 'trust-anchors')
      .flatMap((t) => t.children.filter((c) => c.name === 'certificates').map((c) => attribute(c, 'src')?.text ?? '')),
    pins: e.children.filter((c) => c.name === 'pin-set').reduce((n, p) => n + p.children.length, 0),
  };
}

/**
 * Decodes the compiled network security configuration at `path` (binary XML, or the protocol buffer XML
 * of an app bundle module when `proto`); faults are `malformed`.
 */
export function readNetworkSecurityConfig(path: string, bytes: Buffer, proto = false): NetworkSecurityConfig {
  const root = (proto ? parseProtoXml(bytes) : parseBinaryXml(bytes)).root;
  const kids = root?.children ?? [];
  const domains: NetworkSecurityScope[] = [];
  const walk = (e: XmlElement, depth: number) => {
    if (depth > 16) return;
    for (const c of e.children) {
      if (c.name === 'domain-config') {
        domains.push(scope(c));
        walk(c, depth + 1);
      }
    }
  };
  if (root !== null) walk(root, 0);
  const base = kids.find((c) => c.name === 'base-config');
  return {
    path,
    base: base === undefined ? null : scope(base),
    domains,
    debug_overrides: kids.some((c) => c.name === 'debug-overrides'),
  };
}
