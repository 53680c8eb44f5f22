import { z } from 'zod';
import { ReaError } from '@rea/evidence';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import { accessNames } from '../model/access.js';
import { openPackage } from '../model/session.js';
import { PageInput, PathInput, androidEvidence } from './common.js';

const ClassRowSchema = z.strictObject({
  descriptor: z.string(),
  dex: z.string(),
  access: z.array(z.string()),
  superclass: z.string().nullable(),
  methods: z.number().int(),
  fields: z.number().int(),
});

/** `normalized_result` of `search_android_classes`. */
export const ClassSearchSchema = z.strictObject({
  total: z.number().int().describe('Classes matching, over all pages.'),
  classes: z.array(ClassRowSchema),
});

function matcher(query: string, match: 'substring' | 'prefix' | 'regex'): (descriptor: string) => boolean {
  if (match === 'regex') {
    let re: RegExp;
    try {
      re = new RegExp(query, 'u');
    } catch (error) {
      throw new ReaError('invalid_request', `query is not a valid regular expression: ${(error as Error).message}`, {
        details: { reason: 'invalid-regex', query },
      });
    }
    // Matched against the descriptor (Lcom/example/Foo;) and the dotted name (com.example.Foo).
    return (d) => re.test(d) || re.test(d.slice(1, -1).replace(/\//g, '.'));
  }
  const q = query.includes('.') && !query.includes('/') ? query.replace(/\./g, '/') : query;
  return match === 'prefix' ? (d) => d.startsWith(q) || d.startsWith(`L${q}`) : (d) => d.includes(q);
}

/** `search_android_classes`: classes of the package's DEX files whose descriptor matches, paged. */
export const searchAndroidClassesTool = defineTool({
  name: 'search_android_classes',
  title: 'Search Android classes',
  description:
    'Lists the classes defined in an Android package or DEX file (all DEX files, multidex) whose descriptor matches query, sorted, paged with offset/limit (coverage.next_offset when more): descriptor, DEX file, access flags, superclass, member counts. An empty query lists every class.',
  input: z.strictObject({
    path: PathInput,
    query: z.string().max(1024).default('').describe('Text to match in descriptors (dots or slashes).'),
    match: z
      .enum(['substring', 'prefix', 'regex'])
      .default('substring')
      .describe(
        'Default substring; a regex is tried on the descriptor (Lcom/example/Foo;) and on the dotted name (com.example.Foo).',
      ),
    ...PageInput,
  }),
  result: ClassSearchSchema,
  examples: [{ input: { path: '/tmp/app-release.apk', query: 'com.example', match: 'prefix' } }],
  effects: RECORDS_EVIDENCE,
  produces: 'evidence',
  async run(input, context) {
    const pkg = await openPackage(input.path, context.signal);
    const test = matcher(input.query, input.match);
    const matched = [...pkg.classes.keys()].filter(test).sort();
    const page = matched.slice(input.offset, input.offset + input.limit);
    const classes = page.map((descriptor) => {
      const site = pkg.classes.get(descriptor)!;
      const { file, path } = pkg.dex[site.dex]!;
      const def = file.classDef(site.classDef);
      let methods = 0;
      let fields = 0;
      try {
        const data = file.classData(def.classDataOff);
        methods = data.directMethods.length + data.virtualMethods.length;
        fields = data.staticFields.length + data.instanceFields.length;
      } catch {
        // Counted as zero; inspect_android_class reports the fault.
      }
      return {
        descriptor,
        dex: path,
        access: accessNames(def.accessFlags, 'class'),
        superclass: def.superclassIdx === 0xffffffff ? null : file.type(def.superclassIdx),
        methods,
        fields,
      };
    });
    const next = input.offset + page.length < matched.length ? input.offset + page.length : null;
    const parameters = { query: input.query, match: input.match, offset: input.offset, limit: input.limit };
    return {
      ...androidEvidence(pkg, 'class-search', parameters, { total: matched.length, classes }, [], next),
      local: { path: input.path },
    };
  },
});
