/**
 * The JSON text an Evidence record was answered with as a tool result (its canonical JSON, which the
 * result carries as its text content), by the record itself: a sealed record does not change. The
 * writers of large frames put that text where the record goes as structured content instead of
 * serializing it a second time: the same JSON value (its members in canonical order rather than in
 * insertion order), with no further walk of the record and no second copy of its text.
 */
const answered = new WeakMap<object, string>();

/** Records that `record` (sealed, a result's structured content) was answered with `text`, its canonical JSON. */
export function rememberAnsweredText(record: object, text: string): void {
  answered.set(record, text);
}

/** The canonical JSON text `value` was answered with, or undefined. */
export function answeredTextOf(value: object): string | undefined {
  return answered.get(value);
}
