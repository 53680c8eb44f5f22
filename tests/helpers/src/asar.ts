import { writeFileSync } from 'node:fs';

/**
 * Writes a minimal Electron ASAR archive at `path` holding `files` (flat names to UTF-8 text): an
 * 8-byte size pickle, the header pickle (length-prefixed JSON, padded to 4 bytes), then the file bytes
 * in order. Enough for inventory and application analysis; integrity hashes are not recorded.
 */
export function writeAsar(path: string, files: Record<string, string>): void {
  let offset = 0;
  const entries: Record<string, { size: number; offset: string }> = {};
  for (const [name, text] of Object.entries(files)) {
    entries[name] = { size: Buffer.byteLength(text), offset: String(offset) };
    offset += Buffer.byteLength(text);
  }
  const json = Buffer.from(JSON.stringify({ files: entries }));
  const padded = Math.ceil(json.length / 4) * 4;
  const header = Buffer.alloc(8 + padded);
  header.writeUInt32LE(4 + padded, 0);
  header.writeUInt32LE(json.length, 4);
  json.copy(header, 8);
  const size = Buffer.alloc(8);
  size.writeUInt32LE(4, 0);
  size.writeUInt32LE(header.length, 4);
  writeFileSync(path, Buffer.concat([size, header, ...Object.values(files).map((text) => Buffer.from(text))]));
}
