import { packageVersion } from '@rea/provider-kit';

/**
 * The version of @rea/artifact recorded as the provider version in Evidence it produces: its manifest's,
 * found by package name (so the same installed or bundled; a bundle states it at build time).
 */
export const ARTIFACT_PACKAGE_VERSION: string = packageVersion(import.meta.url, '@rea/artifact');
