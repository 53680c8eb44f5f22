import type { ToolEffects } from '@rea/provider-kit';

/** Effects with every flag false, to spread and override. */
export const NO_EFFECTS: ToolEffects = {
  readOnly: false,
  mutatesSession: false,
  writesFilesystem: false,
  launchesProcess: false,
  executesForeignCode: false,
  mutatesDevice: false,
  mayDiscardData: false,
  idempotent: false,
  openWorld: false,
};
