import { ANDROID_DEVICE_SETTINGS } from '@rea/provider-android/settings';
import { BROWSER_SETTINGS } from '@rea/provider-browser/settings';
import { CAPSTONE_SETTINGS } from '@rea/provider-capstone/settings';
import { LLDB_SETTINGS } from '@rea/provider-lldb/settings';
import type { SettingsDeclaration } from '@rea/provider-kit';

/**
 * The settings the default providers declare (`Provider.settings`), imported from the `settings`
 * module of each provider package — declarations only, nothing of an engine — so that `rea mcp`
 * validates them at start without loading a provider. The composition's tests check that this is
 * exactly what the default providers declare.
 */
export const DEFAULT_PROVIDER_SETTINGS: readonly SettingsDeclaration[] = Object.freeze([
  ANDROID_DEVICE_SETTINGS,
  BROWSER_SETTINGS,
  CAPSTONE_SETTINGS,
  LLDB_SETTINGS,
]);
