// Reads the files of a packed package (a gzipped ustar archive, as `pnpm pack` and `npm pack` write it).
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/** A NUL-terminated field of a tar header. */
function field(block, start, length) {
  const bytes = block.subarray(start, start + length);
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end < 0 ? length : end).toString('utf8');
}

/**
 * The regular files of a `.tgz` package as a map from path (`package/LICENSE`, …) to contents.
 * Handles ustar name prefixes and pax `path` records, which is all that package tarballs use.
 */
export function readTarball(path) {
  const data = gunzipSync(readFileSync(path));
  const files = new Map();
  let offset = 0;
  let paxPath = null;
  while (offset + 512 <= data.length) {
    const header = data.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const size = parseInt(field(header, 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156] || 48);
    const prefix = field(header, 345, 155);
    const name = paxPath ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    const body = data.subarray(offset + 512, offset + 512 + size);
    paxPath = null;
    if (type === 'x') {
      const match = /\d+ path=([^\n]*)\n/.exec(body.toString('utf8'));
      if (match) paxPath = match[1];
    } else if (type === '0' || type === '\0') {
      files.set(name, Buffer.from(body));
    }
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}
