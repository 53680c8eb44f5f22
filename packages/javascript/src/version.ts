/** The version of @rea/javascript recorded as the provider version in Evidence it produces. */
export const JAVASCRIPT_PACKAGE_VERSION = '0.1.0';
