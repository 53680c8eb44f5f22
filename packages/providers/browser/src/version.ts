/** The version of @rea/provider-browser recorded as the provider version in Evidence it produces. */
export const BROWSER_PROVIDER_VERSION = '0.1.0';
