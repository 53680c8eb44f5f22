import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * This package's version as its installed manifest states it. The manifest is found by package name (a
 * self-reference), so the answer is the same when this module runs from the installed package and when
 * it is bundled into an application that depends on it.
 */
function manifestVersion(): string {
  const manifest = createRequire(import.meta.url).resolve('@rea/artifact/package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** The version of @rea/artifact recorded as the provider version in Evidence it produces (its manifest's). */
export const ARTIFACT_PACKAGE_VERSION: string = manifestVersion();
