/** The version of @rea/artifact recorded as the provider version in Evidence it produces. */
export const ARTIFACT_PACKAGE_VERSION = '0.1.0';
