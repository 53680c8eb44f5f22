// Feature-flag sites: the checks of the common flag SDKs (LaunchDarkly, Unleash, GrowthBook, Statsig,
// Split, Optimizely, OpenFeature, Flagsmith, ConfigCat) with the flag key they name, and environment
// variables read as flags (`process.env.FEATURE_X`, `import.meta.env.VITE_ENABLE_Y`).
import type { EsNode } from '../engine/parser.js';
import type { Position } from './facts.js';
import { memberPath, stringValue } from './walk.js';

/** Who defines a flag: an SDK, or the environment. */
export type FlagProvider =
  | 'launchdarkly'
  | 'unleash'
  | 'growthbook'
  | 'statsig'
  | 'split'
  | 'optimizely'
  | 'openfeature'
  | 'flagsmith'
  | 'configcat'
  | 'env';

/** A feature-flag check or read: the flag's key, who defines it, and the API used. */
export interface FlagSite {
  key: string;
  provider: FlagProvider;
  api: string;
  at: Position;
}

const SDKS: [RegExp, FlagProvider][] = [
  [/^(?:launchdarkly-|@launchdarkly\/)/, 'launchdarkly'],
  [/^(?:unleash-|@unleash\/)/, 'unleash'],
  [/^@growthbook\//, 'growthbook'],
  [/^(?:statsig-|@statsig\/)/, 'statsig'],
  [/^@splitsoftware\//, 'split'],
  [/^@optimizely\//, 'optimizely'],
  [/^@openfeature\//, 'openfeature'],
  [/^(?:flagsmith(?:\/|$)|@flagsmith\/|react-native-flagsmith)/, 'flagsmith'],
  [/^(?:configcat-|@configcat\/)/, 'configcat'],
];

/** Methods only flag SDKs name so: a check wherever they are called with a literal key. */
const SPECIFIC: Record<string, FlagProvider> = {
  variation: 'launchdarkly',
  variationDetail: 'launchdarkly',
  boolVariation: 'launchdarkly',
  stringVariation: 'launchdarkly',
  numberVariation: 'launchdarkly',
  jsonVariation: 'launchdarkly',
  getFeatureValue: 'growthbook',
  useFeatureIsOn: 'growthbook',
  useFeatureValue: 'growthbook',
  checkGate: 'statsig',
  getFeatureGate: 'statsig',
  useGate: 'statsig',
  useFeatureGate: 'statsig',
  getTreatment: 'split',
  getTreatmentWithConfig: 'split',
  isFeatureEnabled: 'optimizely',
  getBooleanValue: 'openfeature',
  getBooleanDetails: 'openfeature',
  hasFeature: 'flagsmith',
  useFlag: 'unleash',
  useVariant: 'unleash',
  getValueAsync: 'configcat',
};

/** Names other code uses too: a check only in a file importing a flag SDK, or on an object named for flags. */
const GENERIC: Record<string, FlagProvider> = {
  isEnabled: 'unleash',
  getVariant: 'unleash',
  isOn: 'growthbook',
  isOff: 'growthbook',
  evalFeature: 'growthbook',
  feature: 'growthbook',
  getExperiment: 'statsig',
  decide: 'optimizely',
  getStringValue: 'openfeature',
  getNumberValue: 'openfeature',
  getObjectValue: 'openfeature',
  getValue: 'configcat',
};
const FLAG_OBJECT =
  /flag|feature|unleash|growthbook|launchdarkly|statsig|optimizely|openfeature|configcat|flagsmith|^ld(?:Client)?$|^gb$/i;
const ENV_FLAG = /(?:^|_)(?:FEATURES?|FF|FLAGS?|ENABLE[DS]?|DISABLE[DS]?|EXPERIMENT(?:AL|S)?|TOGGLES?|BETA)(?:_|$)/;

/** Collects one file's flag sites; generic calls are kept once the file's imports are known. */
export class FlagSites {
  private readonly sites: FlagSite[] = [];
  private readonly generic: (FlagSite & { flagObject: boolean })[] = [];
  private sdk: FlagProvider | null = null;

  /** Notes an import: a flag SDK decides the provider of generic checks. */
  imported(specifier: string): void {
    this.sdk ??= SDKS.find(([pattern]) => pattern.test(specifier))?.[1] ?? null;
  }

  /** Looks at a call: `client.variation('key', false)`, `(0, r.useFlag)('key')`, … */
  call(node: EsNode, at: Position): void {
    const args = node.arguments as EsNode[];
    const key = stringValue(args[0]);
    if (key === null || key.length === 0) return;
    let callee = node.callee as EsNode;
    if (callee.type === 'SequenceExpression') callee = (callee.expressions as EsNode[]).at(-1)!;
    const method =
      callee.type === 'Identifier'
        ? (callee.name as string)
        : callee.type === 'MemberExpression' && !callee.computed
          ? ((callee.property as EsNode).name as string)
          : null;
    if (method === null) return;
    const api = memberPath(callee) ?? method;
    const specific = Object.hasOwn(SPECIFIC, method) ? SPECIFIC[method]! : null;
    if (specific !== null) {
      this.sites.push({ key, provider: specific, api, at });
    } else if (Object.hasOwn(GENERIC, method) && callee.type === 'MemberExpression') {
      const object = memberPath(callee.object) ?? '';
      const flagObject = FLAG_OBJECT.test(object.split('.').at(-1) ?? '');
      this.generic.push({ key, provider: GENERIC[method]!, api, at, flagObject });
    }
  }

  /** Looks at a member read: `process.env.FEATURE_X`, `import.meta.env.VITE_ENABLE_Y`. */
  member(node: EsNode, at: Position): void {
    const property = node.property as EsNode;
    const name = node.computed ? stringValue(property) : (property.name as string);
    if (name === null || !ENV_FLAG.test(name)) return;
    const env = node.object as EsNode;
    if (env.type !== 'MemberExpression' || env.computed || (env.property as EsNode).name !== 'env') return;
    const holder = env.object as EsNode;
    const api =
      holder.type === 'Identifier' && holder.name === 'process'
        ? 'process.env'
        : holder.type === 'MetaProperty'
          ? 'import.meta.env'
          : null;
    if (api !== null) this.sites.push({ key: name, provider: 'env', api, at });
  }

  /** The file's flag sites in source order. */
  finish(): FlagSite[] {
    const generic = this.generic
      .filter((g) => this.sdk !== null || g.flagObject)
      .map(({ flagObject: _, ...site }) => ({ ...site, provider: this.sdk ?? site.provider }));
    return [...this.sites, ...generic].sort((a, b) => a.at.offset - b.at.offset);
  }
}
