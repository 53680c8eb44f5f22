/**
 * The JSON text the last large Evidence result was answered with (the record's canonical JSON, which
 * the result carries as its text content), kept until the writer of that result's frame takes it: the
 * writers of large frames put that text where the record goes as structured content instead of
 * serializing it a second time (the same JSON value, its members in canonical order rather than in
 * insertion order). The SDK hands the transport a copy of the result, not the object that was answered,
 * so the frame's result is recognized by its text: a result whose text content is the kept text (the
 * same string) and whose structured content names the same record was answered with it. One text at
 * most is kept, and only until it is taken: a retained record does not keep a copy of its text alive.
 * A result answered while another waits to be written takes the slot, and the other is serialized as
 * before.
 */
let slot: { evidenceId: string; text: string } | null = null;

/** Nothing is known: every value is serialized. */
const unknownText = (): undefined => undefined;

/** Keeps `text`, the canonical JSON of `record` (sealed, a result's structured content), for its frame. */
export function rememberAnsweredText(record: { evidence_id: string }, text: string): void {
  slot = { evidenceId: record.evidence_id, text };
}

/**
 * For a message about to be written: what gives the JSON text of its structured content when its
 * result was answered with the kept text (which is then forgotten), else what gives nothing.
 */
export function answeredTextIn(message: unknown): (node: object) => string | undefined {
  const kept = slot;
  const result = (message as { result?: { content?: unknown; structuredContent?: unknown } } | null)?.result;
  if (kept === null || result === null || typeof result !== 'object') return unknownText;
  const record = result.structuredContent as { evidence_id?: unknown } | null | undefined;
  if (record === null || typeof record !== 'object' || record.evidence_id !== kept.evidenceId) return unknownText;
  const content = Array.isArray(result.content) ? (result.content as Array<{ text?: unknown }>) : [];
  if (!content.some((item) => item?.text === kept.text)) return unknownText;
  slot = null;
  return (node) => (node === record ? kept.text : undefined);
}
