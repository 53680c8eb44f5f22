import { defineSettings, integerSetting, pathSetting } from '@rea/provider-kit';

/**
 * The variables the Android device provider reads. adb itself also reads `ADB_SERVER_SOCKET` and
 * `ANDROID_ADB_SERVER_PORT` (which server to talk to); REA passes them through and never starts a server.
 */
export const ANDROID_DEVICE_SETTINGS = defineSettings('android-device', {
  adbPath: pathSetting('REA_ADB_PATH', 'The adb executable to run; unset finds adb on PATH, then in the SDK.'),
  androidHome: pathSetting('ANDROID_HOME', 'The Android SDK; adb is looked for in its platform-tools.'),
  androidSdkRoot: pathSetting('ANDROID_SDK_ROOT', 'The Android SDK (older name); searched after ANDROID_HOME.'),
  adbTimeoutMs: integerSetting('REA_ADB_TIMEOUT_MS', {
    fallback: 120_000,
    min: 1,
    max: 2_147_483_647,
    description: 'Deadline in ms for one adb command of a device operation.',
  }),
});
