/**
 * The JSON text the last large Evidence result was answered with (the record's canonical JSON, which
 * the result carries as its text content), kept for the record until the frame's writer takes it: the
 * writers of large frames put that text where the record goes as structured content instead of
 * serializing it a second time (the same JSON value, its members in canonical order rather than in
 * insertion order). One text at most is kept, and only until it is taken: a retained record does not
 * keep a copy of its text alive. A result answered while another waits to be written takes the slot,
 * and the other is serialized as before.
 */
let slot: { record: object; text: string } | null = null;

/** Keeps `text`, the canonical JSON of `record` (sealed, a result's structured content), for its frame. */
export function rememberAnsweredText(record: object, text: string): void {
  slot = { record, text };
}

/** The canonical JSON text `value` was answered with, once (it is then forgotten), or undefined. */
export function answeredTextOf(value: object): string | undefined {
  if (slot === null || slot.record !== value) return undefined;
  const { text } = slot;
  slot = null;
  return text;
}
