import { join } from 'node:path';

/** The MCP clients whose configuration `rea doctor` reads and `rea setup` writes. */
export const CLIENT_IDS = ['claude-code', 'claude-desktop', 'codex', 'cursor', 'gemini-cli', 'windsurf'] as const;

/** One supported MCP client id. */
export type ClientId = (typeof CLIENT_IDS)[number];

/** Where and how a client keeps its MCP server registrations. */
export interface ClientDefinition {
  id: ClientId;
  name: string;
  format: 'json' | 'toml';
  /** The client reads its JSON file with `//` and block comments (and REA keeps them when it writes). */
  comments: boolean;
  /** The table holding server entries: `mcpServers` (JSON clients) or `mcp_servers` (Codex). */
  serversKey: 'mcpServers' | 'mcp_servers';
  /** Claude Code writes `"type": "stdio"` into its entries; the others take command and args only. */
  entryType: string | null;
  /** The user-scope configuration file for this home, platform and environment. */
  file(home: string, platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>): string;
}

/** The name REA's entry has in every client's server table. */
export const ENTRY_NAME = 'rea';

function claudeDesktop(home: string, platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>) {
  if (platform === 'darwin')
    return join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
  if (platform === 'win32') {
    return join(env['APPDATA'] ?? join(home, 'AppData', 'Roaming'), 'Claude', 'claude_desktop_config.json');
  }
  return join(env['XDG_CONFIG_HOME'] || join(home, '.config'), 'Claude', 'claude_desktop_config.json');
}

/** Every supported client, sorted by id. */
export const CLIENTS: readonly ClientDefinition[] = [
  {
    id: 'claude-code',
    name: 'Claude Code',
    format: 'json',
    comments: false,
    serversKey: 'mcpServers',
    entryType: 'stdio',
    file: (home) => join(home, '.claude.json'),
  },
  {
    id: 'claude-desktop',
    name: 'Claude Desktop',
    format: 'json',
    comments: false,
    serversKey: 'mcpServers',
    entryType: null,
    file: claudeDesktop,
  },
  {
    id: 'codex',
    name: 'Codex',
    format: 'toml',
    comments: false,
    serversKey: 'mcp_servers',
    entryType: null,
    file: (home, _platform, env) => join(env['CODEX_HOME'] || join(home, '.codex'), 'config.toml'),
  },
  {
    id: 'cursor',
    name: 'Cursor',
    format: 'json',
    comments: false,
    serversKey: 'mcpServers',
    entryType: null,
    file: (home) => join(home, '.cursor', 'mcp.json'),
  },
  {
    id: 'gemini-cli',
    name: 'Gemini CLI',
    format: 'json',
    comments: true,
    serversKey: 'mcpServers',
    entryType: null,
    file: (home) => join(home, '.gemini', 'settings.json'),
  },
  {
    id: 'windsurf',
    name: 'Windsurf',
    format: 'json',
    comments: false,
    serversKey: 'mcpServers',
    entryType: null,
    file: (home) => join(home, '.codeium', 'windsurf', 'mcp_config.json'),
  },
];

/** The definition of a client id, or undefined. */
export function clientById(id: string): ClientDefinition | undefined {
  return CLIENTS.find((c) => c.id === id);
}
