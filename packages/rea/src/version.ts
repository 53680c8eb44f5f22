import { readFileSync } from 'node:fs';

/** The installed `rea-mcp` package's name and version, read from its manifest (cheap: no other import). */
export function readPackageInfo(): { name: string; version: string } {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    name: string;
    version: string;
  };
  return { name: manifest.name, version: manifest.version };
}
