import { packageVersion } from '@rea/provider-kit';

/**
 * This package's version as its installed manifest states it (found by package name, so bundled or
 * installed alike; a bundle states it at build time): the provider version in Evidence.
 */
export const ANDROID_PROVIDER_VERSION: string = packageVersion(import.meta.url, '@rea/provider-android');
