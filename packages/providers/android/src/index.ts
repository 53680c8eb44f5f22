/** @rea/provider-android — every export of this module is public API. */
export { ANDROID_DEVICE_CAPABILITIES, ANDROID_DEVICE_SETTINGS, createAndroidDeviceProvider } from './device/index.js';
export type { AndroidDeviceProviderOptions } from './device/index.js';
