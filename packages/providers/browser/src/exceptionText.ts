import type { CdpParams } from './engine/cdp.js';

/**
 * The text DevTools shows for `Runtime.exceptionThrown`: the exception's own prefix (`Uncaught`,
 * `Uncaught (in promise)`) followed by the first line of the thrown value's description
 * (`Uncaught Error: boom`), or of its value when it has none (`throw "x"`).
 */
export function exceptionText(params: CdpParams): string {
  const details = (params['exceptionDetails'] ?? {}) as {
    text?: string;
    exception?: { description?: string; value?: unknown };
  };
  const thrown = details.exception;
  const described =
    thrown?.description ?? (thrown !== undefined && 'value' in thrown ? JSON.stringify(thrown.value) : undefined);
  const head = details.text ?? 'Uncaught';
  return described === undefined ? head : `${head} ${described.split('\n')[0]}`;
}
