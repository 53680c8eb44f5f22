/**
 * The environment variables the Capstone provider reads. A module of its own (`@rea/provider-capstone/settings`)
 * that loads nothing of the engine, so a host can validate them at startup without loading the provider.
 */
import { defineSettings, integerSetting } from '@rea/provider-kit';

/** The deadline of opening a target when neither the option nor the variable says otherwise, in ms. */
export const CAPSTONE_OPEN_TIMEOUT_MS = 600_000;

/** The Capstone provider's settings: `REA_CAPSTONE_OPEN_TIMEOUT_MS`. */
export const CAPSTONE_SETTINGS = defineSettings('capstone', {
  capstoneOpenTimeoutMs: integerSetting('REA_CAPSTONE_OPEN_TIMEOUT_MS', {
    fallback: CAPSTONE_OPEN_TIMEOUT_MS,
    min: 1,
    max: 2_147_483_647,
    description: 'Deadline of opening a target with the embedded engine (parse, decode, function discovery), in ms.',
  }),
});
