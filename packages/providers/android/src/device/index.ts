/**
 * Android device operations through adb: every export of this module is public API, re-exported by
 * the package entry.
 */
export { createAndroidDeviceProvider, ANDROID_DEVICE_CAPABILITIES } from './provider.js';
export type { AndroidDeviceProviderOptions } from './provider.js';
export { ANDROID_DEVICE_SETTINGS } from './settings.js';
