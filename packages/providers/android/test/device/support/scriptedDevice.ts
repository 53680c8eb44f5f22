/**
 * A scripted device for the STAND-IN adb server: what a handset's shell prints for the commands the
 * device tools run, written by hand in the formats those commands use. Tests assert against the values
 * defined here, never against values the tools produced.
 */
import type { StandInDevice, StandInFile, StandInShellReply } from './standInAdbServer.js';

/** The PNG signature and a minimal IHDR, enough to be recognised as a PNG. */
export const SCREEN_PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from('0000000d49484452000000020000000208020000', 'hex'),
  Buffer.alloc(200, 0x42),
]);

export const PROPERTIES: Record<string, string> = {
  'ro.product.manufacturer': 'StandIn',
  'ro.product.model': 'Stand In 1',
  'ro.build.version.release': '14',
  'ro.build.version.sdk': '34',
  'ro.product.cpu.abilist': 'arm64-v8a,armeabi-v7a',
  'ro.build.fingerprint': 'standin/standin/standin:14/UQ1A.240205.004/1:user/release-keys',
  'persist.sys.locale': 'en-US',
};

export const BASE_APK = Buffer.from('PK\u0003\u0004 stand-in base apk bytes '.repeat(3000));
export const SPLIT_APK = Buffer.from('PK\u0003\u0004 stand-in split apk bytes '.repeat(500));
const APP_DIR = '/data/app/~~f00/com.android.settings-1';

const file = (data: Buffer, mtime = 1_700_000_000): StandInFile => ({ mode: 0o100644, data, mtime });
const dir = (): StandInFile => ({ mode: 0o40771, data: null, mtime: 1_700_000_000 });

const PACKAGES = [
  `package:${APP_DIR}/base.apk=com.android.settings uid:1000`,
  'package:/data/app/~~a1/com.example.notes-2/base.apk=com.example.notes uid:10123',
  'package:/system/app/Camera/Camera.apk=com.android.camera2 uid:10045',
];

const DUMPSYS = `Packages:
  Package [com.android.settings] (2f1c3a):
    userId=1000
    versionCode=34 minSdk=34 targetSdk=34
    versionName=14
    flags=[ SYSTEM HAS_CODE ALLOW_CLEAR_USER_DATA ]
    timeStamp=2024-02-05 10:00:00
    firstInstallTime=2024-02-05 10:00:01
    lastUpdateTime=2024-03-01 12:30:00
    installerPackageName=null
    requested permissions:
      android.permission.INTERNET
      android.permission.WRITE_SETTINGS: restricted=true
    install permissions:
      android.permission.INTERNET: granted=true
`;

/** The scripted shell: command lines exactly as REA's tools send them, and the output a device gives. */
function shell(command: string): StandInShellReply | undefined {
  const replies: Record<string, StandInShellReply> = {
    getprop: {
      stdout: Object.entries(PROPERTIES)
        .map(([k, v]) => `[${k}]: [${v}]\n`)
        .join(''),
    },
    'getprop ro.build.version.sdk': { stdout: `${PROPERTIES['ro.build.version.sdk']}\n` },
    'pm list features': {
      stdout: 'feature:android.hardware.camera\nfeature:reqGlEsVersion=0x30002\nfeature:android.hardware.wifi\n',
    },
    'wm size': { stdout: 'Physical size: 1080x2400\nOverride size: 720x1600\n' },
    'wm density': { stdout: 'Physical density: 420\n' },
    'ps -A -o PID,PPID,USER,NAME': {
      stdout:
        '  PID  PPID USER           NAME\n    1     0 root           init\n  812     1 system         system_server\n 4242   640 u0_a123        com.example.notes\n',
    },
    'pm list packages -f -U': { stdout: PACKAGES.map((l) => `${l}\n`).join('') },
    'pm list packages -f -U -3': { stdout: `${PACKAGES[1]}\n` },
    'pm path com.android.settings': { stdout: `package:${APP_DIR}/base.apk\npackage:${APP_DIR}/split_config.en.apk\n` },
    'pm path com.example.gone': { stdout: '', exit: 1 },
    'dumpsys package com.android.settings': { stdout: DUMPSYS },
    "logcat -d -b main -t 3 -v threadtime '*:W'": {
      stdout:
        '--------- beginning of main\n03-01 12:00:00.000   812   830 W ActivityManager: Slow operation\n03-01 12:00:01.000  4242  4242 E AndroidRuntime: FATAL EXCEPTION: main\n03-01 12:00:02.000   812   812 W Looper: Drained\n',
    },
    'cmd package resolve-activity --brief com.android.settings': {
      stdout:
        'priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\ncom.android.settings/.Settings\n',
    },
    'am start -W -n com.android.settings/.Settings': {
      stdout:
        'Starting: Intent { cmp=com.android.settings/.Settings }\nStatus: ok\nLaunchState: COLD\nActivity: com.android.settings/.Settings\nTotalTime: 412\nWaitTime: 415\nComplete\n',
    },
    'am start -W -n com.android.settings/.Missing': {
      stdout:
        'Starting: Intent { cmp=com.android.settings/.Missing }\nError type 3\nError: Activity class {com.android.settings/com.android.settings.Missing} does not exist.\n',
    },
    'am force-stop com.android.settings': { stdout: '' },
    "cmd package 'uninstall' 'com.example.notes'": { stdout: 'Success\n' },
    "cmd package 'uninstall' 'com.example.absent'": { stdout: 'Failure [DELETE_FAILED_INTERNAL_ERROR]\n' },
    "screencap '-p'": { stdout: SCREEN_PNG },
    'test -d /sdcard': { exit: 0 },
    'test -d /nope': { exit: 1 },
  };
  return replies[command];
}

/** A scripted handset with shared storage, system files and an installed Settings app with a split. */
export function scriptedDevice(serial: string, extra: Partial<StandInDevice> = {}): StandInDevice {
  return {
    serial,
    model: 'Stand_In_1',
    files: new Map<string, StandInFile>([
      ['/sdcard', dir()],
      ['/sdcard/Download', dir()],
      ['/sdcard/notes.txt', file(Buffer.from('first line\nsecond line\n'))],
      ['/system/etc/hosts', file(Buffer.from('127.0.0.1       localhost\n::1             ip6-localhost\n'))],
      ['/data/local/tmp', dir()],
      [`${APP_DIR}/base.apk`, file(BASE_APK)],
      [`${APP_DIR}/split_config.en.apk`, file(SPLIT_APK)],
    ]),
    shell: (command) => shell(command),
    ...extra,
  };
}

/** The toolbox `ps` of Android 7 and older, as a handset prints it. */
export const LEGACY_PS = `USER      PID   PPID  VSIZE  RSS   WCHAN              PC  NAME
root      1     0     8964   764   SyS_epoll_ 0000000000 S /init
system    812   1     2046280 98540 SyS_epoll_ 0000000000 S system_server
u0_a123   4242  640   1571236 61232 SyS_epoll_ 0000000000 S com.example.notes
`;

/** `dumpsys package com.android.settings` of an older handset: the activity resolver table first. */
const LEGACY_DUMPSYS = `Activity Resolver Table:
  Non-Data Actions:
      android.intent.action.MAIN:
        1b2c3d4 com.android.settings/.FallbackHome filter 5e6f708
          Action: "android.intent.action.MAIN"
          Category: "android.intent.category.HOME"
        2c3d4e5 com.android.settings/.Settings filter 6f70819
          Action: "android.intent.action.MAIN"
          Category: "android.intent.category.DEFAULT"
          Category: "android.intent.category.LAUNCHER"

${DUMPSYS}`;

/**
 * A handset of API level `sdk` (23: Android 6, no shell protocol v2, so no exit status from its shell
 * service, which runs on a terminal; 24: Android 7, shell v2), with toolbox `ps` and no
 * `cmd package resolve-activity`.
 */
export function olderDevice(serial: string, sdk: 23 | 24): StandInDevice {
  const properties: Record<string, string> = {
    ...PROPERTIES,
    'ro.build.version.release': sdk === 23 ? '6.0.1' : '7.0',
    'ro.build.version.sdk': String(sdk),
  };
  const replies: Record<string, StandInShellReply> = {
    getprop: {
      stdout: Object.entries(properties)
        .map(([k, v]) => `[${k}]: [${v}]\n`)
        .join(''),
    },
    'getprop ro.build.version.sdk': { stdout: `${sdk}\n` },
    ps: { stdout: LEGACY_PS },
    'ps -A -o PID,PPID,USER,NAME': { stdout: "bad pid '-A'\n", exit: 1 },
    'pm path com.android.settings': { stdout: `package:/data/app/com.android.settings-1/base.apk\n` },
    'pm path com.example.gone': { stdout: '', exit: 1 },
    'dumpsys package com.android.settings': { stdout: LEGACY_DUMPSYS },
    'am start -W -n com.android.settings/.Settings': {
      stdout:
        'Starting: Intent { cmp=com.android.settings/.Settings }\nStatus: ok\nActivity: com.android.settings/.Settings\nTotalTime: 380\nComplete\n',
    },
    'am force-stop com.android.settings': { stdout: '' },
    'am force-stop com.example.gone': { stdout: '', stderr: 'Error: no such package\n', exit: 1 },
    'test -d /sdcard': { exit: 0 },
    'test -d /nope': { exit: 1 },
    ...(sdk === 24
      ? { 'cmd package resolve-activity --brief com.android.settings': { stdout: 'Unknown command\n', exit: 255 } }
      : {}),
  };
  return {
    serial,
    model: `Older_${sdk}`,
    features: sdk === 23 ? [] : ['shell_v2', 'cmd'],
    terminal: sdk === 23,
    files: new Map<string, StandInFile>([['/sdcard', dir()]]),
    shell: (command) => replies[command],
  };
}
