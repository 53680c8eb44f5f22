import { basename } from 'node:path';
import type { JsonObject } from '@rea/evidence';
import type { ProgressSink } from '@rea/provider-kit';
import { createNavigationState } from '../port.js';
import type { NativeCapability, NativeDocument, NativePort, NavigationState, PageRequest } from '../port.js';
import type { ExternalEngine } from './external.js';

function paging(page: PageRequest): JsonObject {
  return { offset: page.offset, limit: page.limit, ...(page.query === undefined ? {} : { query: page.query }) };
}

/**
 * The native port of an external engine: every method readies the engine (the first one starts it)
 * and forwards to the bridge, whose answers are validated against the port's schemas. The navigation
 * cursor is kept here, starting at the document's entry once the engine has answered.
 */
export class BridgePort implements NativePort {
  readonly kind = 'native-port' as const;
  readonly capabilities: ReadonlySet<NativeCapability>;
  readonly navigation: NavigationState;
  private cursor: NavigationState;
  private doc: NativeDocument | null = null;

  constructor(
    private readonly engine: ExternalEngine,
    targetPath: string,
    capabilities: readonly NativeCapability[],
  ) {
    this.capabilities = new Set(capabilities);
    this.cursor = createNavigationState(basename(targetPath), null);
    this.navigation = { current: () => this.cursor.current(), goto: (address) => this.cursor.goto(address) };
  }

  async prepare(call: { signal: AbortSignal; progress: ProgressSink }): Promise<void> {
    await this.engine.ready(call);
    if (this.doc === null) {
      this.doc = await this.engine.request('document', {}, call.signal);
      if (this.cursor.current().address === null && this.doc.entry !== null) this.cursor.goto(this.doc.entry);
    }
  }

  async document(signal: AbortSignal) {
    await this.prepare({ signal, progress: { report: () => undefined } });
    return this.doc!;
  }
  procedures(page: PageRequest, signal: AbortSignal) {
    return this.engine.request('procedures', paging(page), signal);
  }
  procedure(address: string, signal: AbortSignal) {
    return this.engine.request('procedure', { address }, signal);
  }
  containingProcedure(address: string, signal: AbortSignal) {
    return this.engine.request('containing_procedure', { address }, signal);
  }
  instructions(procedure: string, page: PageRequest, signal: AbortSignal) {
    return this.engine.request('instructions', { procedure, ...paging(page) }, signal);
  }
  controlFlow(procedure: string, signal: AbortSignal) {
    return this.engine.request('control_flow', { procedure }, signal);
  }
  callers(procedure: string, signal: AbortSignal) {
    return this.engine.request('callers', { procedure }, signal);
  }
  callees(procedure: string, signal: AbortSignal) {
    return this.engine.request('callees', { procedure }, signal);
  }
  references(address: string, signal: AbortSignal) {
    return this.engine.request('references', { address }, signal);
  }
  procedureReferences(procedure: string, signal: AbortSignal) {
    return this.engine.request('procedure_references', { procedure }, signal);
  }
  strings(page: PageRequest, signal: AbortSignal) {
    return this.engine.request('strings', paging(page), signal);
  }
  stringAt(address: string, signal: AbortSignal) {
    return this.engine.request('string_at', { address }, signal);
  }
  names(page: PageRequest, signal: AbortSignal) {
    return this.engine.request('names', paging(page), signal);
  }
  nameAt(address: string, signal: AbortSignal) {
    return this.engine.request('name_at', { address }, signal);
  }
  addressOf(name: string, signal: AbortSignal) {
    return this.engine.request('address_of', { name }, signal);
  }
  segments(signal: AbortSignal) {
    return this.engine.request('segments', {}, signal);
  }
  isMapped(address: string, signal: AbortSignal) {
    return this.engine.request('is_mapped', { address }, signal);
  }
  pseudocode(procedure: string, signal: AbortSignal) {
    return this.engine.request('pseudocode', { procedure }, signal);
  }
  highPcode(procedure: string, page: PageRequest, signal: AbortSignal) {
    return this.engine.request('high_pcode', { procedure, ...paging(page) }, signal);
  }
  comments(address: string, signal: AbortSignal) {
    return this.engine.request('comments', { address }, signal);
  }
  bookmarks(address: string, signal: AbortSignal) {
    return this.engine.request('bookmarks', { address }, signal);
  }
}
