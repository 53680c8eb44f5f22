import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * This package's version as its installed manifest states it (found by package name, so bundled or
 * installed alike): the provider version in Evidence.
 */
export const ANDROID_PROVIDER_VERSION: string = (
  JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@rea/provider-android/package.json'), 'utf8')) as {
    version: string;
  }
).version;
