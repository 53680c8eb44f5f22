import { describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeJavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';

/** Each template of the script, as a function of its substitutions (Node.js evaluates it). */
const TEMPLATES: ((a: string, b: string) => string)[] = [
  (id) => `https://tpl.example.com/api/${id}`,
  (region) => `https://${region}.example.net/v1`,
  (id, query) => `http://port.example.io:8080/${id}?q=${query}`,
];

const SCRIPT = [
  'const id = 1, region = "eu", query = "q";',
  'fetch(`https://tpl.example.com/api/${id}`);',
  'fetch(`https://${region}.example.net/v1`);',
  'fetch(`http://port.example.io:8080/${id}?q=${query}`);',
  '',
].join('\n');

/** The host every evaluation of `template` has, or null when the substitutions change it. */
function hostOf(template: (a: string, b: string) => string): string | null {
  const hosts = new Set(['1', 'eu', 'other-value'].map((v) => new URL(template(v, v)).hostname));
  return hosts.size === 1 ? [...hosts][0]! : null;
}

describe('analyzeJavascriptApplication on URLs in templates with substitutions', () => {
  it('should list each URL with its substitutions written ${…} and the host when the static text holds it', async () => {
    await withTempDir(async (tmp) => {
      writeFileSync(join(tmp, 'app.js'), SCRIPT);
      const { result } = await analyzeJavascriptApplication(tmp);
      const expected = TEMPLATES.map((template, i) => ({
        node_id: 'file:app.js',
        line: i + 2,
        column: 'fetch('.length,
        url: template('${…}', '${…}'),
        host: hostOf(template),
      }));
      expect(expected.map((u) => u.host)).toEqual(['tpl.example.com', null, 'port.example.io']);
      expect(result.urls).toEqual(expected);
      expect(result.hosts).toEqual(['port.example.io', 'tpl.example.com']);
    });
  });
});
