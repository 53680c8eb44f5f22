// The engine package ships no types; engine.ts narrows what it uses.
declare module '@alexaltea/capstone-js' {
  const factory: (options?: object) => Promise<unknown>;
  // eslint-disable-next-line no-restricted-syntax -- the engine module's own CommonJS export
  export default factory;
}
