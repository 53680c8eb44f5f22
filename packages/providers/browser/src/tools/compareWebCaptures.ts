import { ReaError } from '@rea/evidence';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import { checkScenario } from '../compare/invariants.js';
import { diffInspections, diffKeyed, diffScenarios, diffTools, normalizer } from '../compare/diff.js';
import { CompareInputSchema, WebCaptureComparisonSchema } from '../compare/schema.js';
import type { WebCaptureComparison } from '../compare/schema.js';
import { resolveSide } from '../compare/sides.js';
import { WebPageInspectionSchema } from '../inspect/schema.js';
import { ScenarioCaptureSchema } from '../scenario/schema.js';
import { BROWSER_PROVIDER, browserProfile } from './common.js';
import { WebmcpDiscoverySchema } from './discoverWebmcpTools.js';

const REF = { kind: 'retained-evidence', evidence_id: `ev_${'4'.repeat(64)}` } as const;
const REF2 = { kind: 'retained-evidence', evidence_id: `ev_${'5'.repeat(64)}` } as const;

function rules(list: ReadonlyArray<{ pattern: string; replacement: string }>) {
  return list.map((rule, index) => {
    try {
      return { pattern: new RegExp(rule.pattern, 'gu'), replacement: rule.replacement };
    } catch (error) {
      throw new ReaError(
        'invalid_request',
        `normalization.rules[${index}].pattern is not a valid regular expression: ${(error as Error).message}`,
        {
          details: { reason: 'invalid-regex', index, pattern: rule.pattern },
        },
      );
    }
  });
}

/** `compare_web_captures`: what changed between two passive captures or two scenario captures. Contacts no browser. */
export const compareWebCapturesTool = defineTool({
  name: 'compare_web_captures',
  title: 'Compare web captures',
  description:
    'Compares two captures without contacting a browser. Passive: before/after each with inspection (inspect_web_page) and optional webmcp (discover_webmcp_tools). Scenario: before_scenario/after_scenario (capture_browser_scenario) with optional normalization rules. Each side inline or a retained reference. Reports added/removed/changed scripts, resources, WebMCP tools and events.',
  input: CompareInputSchema,
  result: WebCaptureComparisonSchema,
  examples: [
    {
      input: { before: { inspection: REF }, after: { inspection: REF2 } },
      description: 'Two retained inspections of a page, before and after a deploy.',
    },
    {
      input: {
        before_scenario: REF,
        after_scenario: REF2,
        normalization: { rules: [{ pattern: 'session=[0-9a-f]+', replacement: 'session=*' }] },
      },
      description: 'Two retained scenario captures, ignoring session ids.',
    },
  ],
  effects: RECORDS_EVIDENCE,
  produces: 'evidence',
  run: async (input, context) => {
    let result: WebCaptureComparison;
    const links: string[] = [];
    const keep = <T>(side: { value: T; evidenceId: string | null }) => (
      side.evidenceId && links.push(side.evidenceId),
      side.value
    );
    if ('before' in input) {
      const before = keep(
        resolveSide(input.before.inspection, WebPageInspectionSchema, 'inspect_web_page', 'before.inspection', context),
      );
      const after = keep(
        resolveSide(input.after.inspection, WebPageInspectionSchema, 'inspect_web_page', 'after.inspection', context),
      );
      const tools = (value: unknown, field: string) =>
        value === null || value === undefined
          ? []
          : keep(resolveSide(value, WebmcpDiscoverySchema, 'discover_webmcp_tools', field, context)).tools;
      const webmcp = diffTools(tools(input.before.webmcp, 'before.webmcp'), tools(input.after.webmcp, 'after.webmcp'));
      result = {
        family: 'passive',
        ...diffInspections(before, after),
        webmcp_tools: webmcp,
        events: null,
        unchanged: false,
      };
    } else {
      const normalize = normalizer(rules(input.normalization.rules));
      const before = keep(
        resolveSide(
          input.before_scenario,
          ScenarioCaptureSchema,
          'capture_browser_scenario',
          'before_scenario',
          context,
        ),
      );
      const after = keep(
        resolveSide(input.after_scenario, ScenarioCaptureSchema, 'capture_browser_scenario', 'after_scenario', context),
      );
      checkScenario(before, 'before_scenario');
      checkScenario(after, 'after_scenario');
      const resources = (c: typeof before) =>
        c.events
          .filter((e) => e.kind === 'response' && e.url !== null)
          .map((e) => ({ url: normalize(e.url!), print: `${e.status ?? '-'} ${e.detail}` }));
      const empty = { added: [], removed: [], changed: [] };
      result = {
        family: 'scenario',
        scripts: empty,
        resources: diffKeyed(
          resources(before),
          resources(after),
          (r) => r.url,
          (r) => r.print,
        ),
        webmcp_tools: empty,
        events: diffScenarios(before, after, normalize),
        unchanged: false,
      };
    }
    const sections = [result.scripts, result.resources, result.webmcp_tools];
    result.unchanged =
      sections.every((s) => s.added.length + s.removed.length + s.changed.length === 0) &&
      (result.events === null ||
        result.events.added.length + result.events.removed.length + result.events.actions_changed.length === 0);
    return {
      subject: null,
      provider: BROWSER_PROVIDER,
      analysis_profile: browserProfile('compare', {}),
      parameters: { family: result.family, evidence: links },
      normalized_result: result,
      raw_result: null,
      confidence: 'derived' as const,
      limitations: [],
      coverage: { status: 'complete' as const, reasons: [] },
      locations: [],
      evidence_links: [...new Set(links)].sort(),
    };
  },
});
