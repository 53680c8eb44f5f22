// The engine package ships no types; cdp.ts narrows what it uses.
declare module 'chrome-remote-interface' {
  const CDP: (options: { target: string; local?: boolean }) => Promise<unknown>;
  // eslint-disable-next-line no-restricted-syntax -- the engine module's own CommonJS export
  export default CDP;
}
