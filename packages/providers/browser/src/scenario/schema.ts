import { z } from 'zod';

const ACTIONS = [
  'navigate',
  'click',
  'type',
  'press',
  'select',
  'wait_for_selector',
  'wait_for_network_idle',
  'wait_for_downloads',
  'wait',
  'scroll',
  'screenshot',
] as const;

/** Which fields each action needs. */
export const ACTION_FIELDS: Readonly<Record<(typeof ACTIONS)[number], readonly string[]>> = Object.freeze({
  navigate: ['url'],
  click: ['selector'],
  type: ['selector', 'text'],
  press: ['key'],
  select: ['selector', 'value'],
  wait_for_selector: ['selector'],
  wait_for_network_idle: [],
  wait_for_downloads: [],
  wait: ['ms'],
  scroll: ['x', 'y'],
  screenshot: [],
});

/** One declared action of a scenario; the fields it needs are checked when the scenario starts. */
export const ActionSchema = z.strictObject({
  action: z
    .enum(ACTIONS)
    .describe(
      'navigate url; click, wait_for_selector selector; type selector+text; press key; select selector+value; wait ms; scroll x+y; wait_for_network_idle; wait_for_downloads (a new download began, none in progress); screenshot.',
    ),
  url: z.string().min(1).max(8192).optional().describe('navigate: an http(s), file, about or data URL.'),
  selector: z.string().min(1).max(2048).optional().describe('CSS selector.'),
  text: z.string().max(65_536).optional().describe('type: text.'),
  key: z
    .string()
    .min(1)
    .max(32)
    .optional()
    .describe('press: Enter, Tab, Escape, Backspace, ArrowLeft/Up/Right/Down, or one character (" " for Space).'),
  value: z.string().max(4096).optional().describe('select: option value.'),
  ms: z.number().int().min(0).max(600_000).optional().describe('wait: milliseconds.'),
  x: z.number().int().min(0).optional().describe('scroll: left, CSS px.'),
  y: z.number().int().min(0).optional().describe('scroll: top, CSS px.'),
  idle_ms: z
    .number()
    .int()
    .min(1)
    .max(60_000)
    .optional()
    .describe('wait_for_network_idle: ms with no request of the current document in flight (default 500).'),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(600_000)
    .optional()
    .describe('Waits: deadline in ms (default 10000); navigate: its load wait (default: the call load_timeout_ms).'),
});
/** A declared action. */
export type Action = z.output<typeof ActionSchema>;

/** One observed event, in order. */
export const EventSchema = z.strictObject({
  seq: z.number().int().nonnegative(),
  action: z.number().int().nonnegative().nullable(),
  kind: z.enum(['request', 'response', 'request-failed', 'console', 'navigation', 'dialog', 'download', 'dom']),
  url: z.string().nullable(),
  status: z.number().int().nullable(),
  detail: z.string(),
});

/** `normalized_result` of `capture_browser_scenario`. */
export const ScenarioCaptureSchema = z.strictObject({
  endpoint: z.string(),
  target: z.strictObject({ id: z.string(), url: z.string() }),
  actions: z.array(
    z.strictObject({
      index: z.number().int().nonnegative(),
      action: z.string(),
      outcome: z.enum(['ok', 'failed', 'not-run']),
      detail: z.string(),
      first_event: z.number().int().nonnegative().nullable(),
      last_event: z.number().int().nonnegative().nullable(),
    }),
  ),
  events: z.array(EventSchema),
  events_total: z.number().int().nonnegative(),
  screenshots: z.array(
    z.strictObject({
      action: z.number().int().nonnegative(),
      path: z.string(),
      sha256: z.string(),
      size: z.number().int().nonnegative(),
    }),
  ),
  dom_changes: z.array(
    z.strictObject({
      action: z.number().int().nonnegative(),
      added: z.number().int().nonnegative(),
      removed: z.number().int().nonnegative(),
      attributes: z.number().int().nonnegative(),
      text: z.number().int().nonnegative(),
      changes: z.array(
        z.strictObject({
          type: z.enum(['added', 'removed', 'attribute']),
          selector: z.string(),
          attribute: z.string().nullable(),
        }),
      ),
      truncated: z.boolean(),
    }),
  ),
  downloads: z.array(
    z.strictObject({
      action: z.number().int().nonnegative().nullable(),
      url: z.string(),
      suggested_filename: z.string(),
      outcome: z.enum(['kept', 'over-budget', 'canceled', 'incomplete', 'refused']),
      path: z.string().nullable(),
      sha256: z.string().nullable(),
      size: z.number().int().nonnegative().nullable(),
    }),
  ),
});
/** A scenario capture. */
export type ScenarioCapture = z.infer<typeof ScenarioCaptureSchema>;
