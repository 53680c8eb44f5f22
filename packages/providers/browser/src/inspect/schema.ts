import { z } from 'zod';

const nullableString = z.string().nullable();
/** One frame of the page. */
const FrameSchema = z.strictObject({ id: z.string(), parent_id: nullableString, url: z.string(), origin: z.string() });

/** One script the page parsed. */
const ScriptSchema = z.strictObject({
  url: z.string(),
  inline: z.boolean(),
  sha256: nullableString,
  size: z.number().int().nonnegative(),
  source_map_url: nullableString,
  source_map_resolves: z.boolean().nullable(),
});

const ResourceSchema = z.strictObject({
  url: z.string(),
  type: z.string(),
  status: z.number().int().nullable(),
  size: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .describe(
      'Response body bytes as delivered to the page, after any content encoding is undone (headers not counted); null when no body was received (a redirect hop, a failed or unfinished request).',
    ),
  mime: nullableString,
  initiator: nullableString,
});

/** `normalized_result` of `inspect_web_page`. */
export const WebPageInspectionSchema = z.strictObject({
  endpoint: z.string(),
  target: z.strictObject({ id: z.string(), type: z.string() }),
  document: z.strictObject({ url: z.string(), title: z.string(), frames: z.array(FrameSchema) }),
  scripts: z.array(ScriptSchema),
  stylesheets: z.array(z.strictObject({ url: nullableString, inline: z.boolean(), size: z.number().int().nullable() })),
  resources: z.array(ResourceSchema),
  console: z.strictObject({
    total: z.number().int().nonnegative(),
    messages: z.array(z.strictObject({ level: z.string(), source: z.string(), text: z.string() })),
  }),
  dialogs: z.array(z.strictObject({ type: z.string(), message: z.string() })),
  storage: z.strictObject({
    local_storage: z.array(z.strictObject({ key: z.string(), value: nullableString })),
    session_storage: z.array(z.strictObject({ key: z.string(), value: nullableString })),
    cookies: z.array(z.string()),
  }),
  service_workers: z.array(
    z.strictObject({
      id: nullableString,
      url: z.string(),
      scope: nullableString,
      status: nullableString,
      running_status: nullableString,
    }),
  ),
  security: z.strictObject({
    scheme: z.string(),
    secure_context: z.boolean().nullable(),
    csp: z.array(z.strictObject({ source: z.enum(['header', 'meta']), policy: z.string() })),
  }),
  dom: z.strictObject({
    elements: z.number().int().nonnegative().nullable(),
    outline: z.array(
      z.strictObject({ depth: z.number().int(), tag: z.string(), id: nullableString, classes: z.array(z.string()) }),
    ),
    truncated: z.boolean(),
  }),
});

/** The inspection of one page. */
export type WebPageInspection = z.infer<typeof WebPageInspectionSchema>;
