/** The variables the Android providers read, for hosts that validate them at start. */
export { ANDROID_DEVICE_SETTINGS } from './device/settings.js';
