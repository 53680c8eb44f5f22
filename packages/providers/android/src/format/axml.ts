import { Bytes, malformed } from './bytes.js';
import type { ResValue } from './resValue.js';
import { VALUE, valueText } from './resValue.js';
import { STRING_POOL_TYPE, StringPool } from './stringPool.js';
import { ANDROID_ATTRIBUTES } from './attributes.js';

const XML_TYPE = 0x0003;
const RESOURCE_MAP = 0x0180;
const START_NAMESPACE = 0x0100;
const END_NAMESPACE = 0x0101;
const START_ELEMENT = 0x0102;
const END_ELEMENT = 0x0103;
const CDATA = 0x0104;
const NO_INDEX = 0xffffffff;

/** Elements decoded at most; past it the document is cut (`truncated`). */
export const MAX_XML_ELEMENTS = 200_000;
/** Deepest nesting decoded. */
export const MAX_XML_DEPTH = 256;

/** One attribute of a binary XML element. */
export interface XmlAttribute {
  /** Local name (from the string pool, or from the attribute's resource id when the name is empty). */
  name: string;
  namespace: string | null;
  /** The framework attribute id the resource map gives it, when it has one. */
  resourceId: number | null;
  /** The raw string value, when the attribute has one. */
  raw: string | null;
  value: ResValue;
  /** The value as text: the raw string, a pool string, or the typed value formatted. */
  text: string;
}

/** One element of a binary XML document. */
export interface XmlElement {
  name: string;
  namespace: string | null;
  line: number;
  attributes: XmlAttribute[];
  children: XmlElement[];
  /** Character data directly inside the element (joined), `""` when none. */
  text: string;
}

/** A decoded binary XML document. */
export interface XmlDocument {
  root: XmlElement | null;
  elements: number;
  /** Strings whose index or bytes were out of range (shown as `""`). */
  stringFaults: number;
  /** Why decoding stopped before the end, when it did. */
  truncated: string | null;
}

/**
 * Decodes an Android binary XML document (compiled manifest or layout). Structural faults (bad magic,
 * chunk sizes past the data) are `malformed`; a string index out of range reads as an empty string and
 * is counted; a document past {@link MAX_XML_ELEMENTS} or {@link MAX_XML_DEPTH} is cut and says so.
 */
export function parseBinaryXml(buffer: Buffer): XmlDocument {
  const bytes = new Bytes(buffer, 'binary XML');
  if (bytes.u16(0, 'file header') !== XML_TYPE) throw malformed('binary XML', 'not a binary XML document');
  const headerSize = bytes.u16(2, 'file header size');
  const end = Math.min(bytes.u32(4, 'file size'), buffer.length);
  let pool: StringPool | null = null;
  let resourceMap: number[] = [];
  const str = (index: number): string => (index === NO_INDEX || pool === null ? '' : (pool.get(index) ?? ''));
  const namespaces = new Map<string, string>();
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  let elements = 0;
  let truncated: string | null = null;
  let at = headerSize;
  while (at + 8 <= end) {
    const type = bytes.u16(at, 'chunk type');
    const chunkHeader = bytes.u16(at + 2, 'chunk header size');
    const size = bytes.u32(at + 4, 'chunk size');
    if (size < 8 || chunkHeader > size) throw malformed('binary XML', 'a chunk has an impossible size', { offset: at });
    bytes.need(at, size, 'chunk');
    if (type === STRING_POOL_TYPE && pool === null) {
      pool = new StringPool(bytes, at);
    } else if (type === RESOURCE_MAP) {
      const count = Math.min((size - chunkHeader) >>> 2, 65_536);
      resourceMap = Array.from({ length: count }, (_, i) => bytes.u32(at + chunkHeader + i * 4));
    } else if (type === START_NAMESPACE || type === END_NAMESPACE) {
      if (type === START_NAMESPACE)
        namespaces.set(str(bytes.u32(at + chunkHeader + 4)), str(bytes.u32(at + chunkHeader)));
    } else if (type === START_ELEMENT) {
      if (elements >= MAX_XML_ELEMENTS || stack.length >= MAX_XML_DEPTH) {
        truncated = elements >= MAX_XML_ELEMENTS ? 'element-limit' : 'depth-limit';
        break;
      }
      const ext = at + chunkHeader;
      const ns = bytes.u32(ext, 'element namespace');
      const attributeStart = bytes.u16(ext + 8, 'attribute start');
      const attributeSize = bytes.u16(ext + 10, 'attribute size');
      const attributeCount = bytes.u16(ext + 12, 'attribute count');
      if (attributeSize < 20) throw malformed('binary XML', 'attribute size is smaller than an attribute');
      bytes.need(ext + attributeStart, attributeCount * attributeSize, 'attributes');
      const attributes: XmlAttribute[] = [];
      for (let i = 0; i < attributeCount; i++) {
        const a = ext + attributeStart + i * attributeSize;
        const nameIndex = bytes.u32(a + 4);
        const rawIndex = bytes.u32(a + 8);
        const value: ResValue = { type: bytes.u8(a + 15), data: bytes.u32(a + 16) };
        const resourceId = nameIndex < resourceMap.length ? resourceMap[nameIndex]! : null;
        const fromPool = str(nameIndex);
        const name =
          fromPool !== '' ? fromPool : ((resourceId !== null ? ANDROID_ATTRIBUTES.get(resourceId) : undefined) ?? '');
        const raw = rawIndex === NO_INDEX ? null : str(rawIndex);
        const text = raw ?? (value.type === VALUE.STRING ? str(value.data) : valueText(value));
        const nsIndex = bytes.u32(a);
        attributes.push({ name, namespace: nsIndex === NO_INDEX ? null : str(nsIndex), resourceId, raw, value, text });
      }
      const element: XmlElement = {
        name: str(bytes.u32(ext + 4, 'element name')),
        namespace: ns === NO_INDEX ? null : str(ns),
        line: bytes.u32(at + 8, 'line'),
        attributes,
        children: [],
        text: '',
      };
      elements++;
      if (stack.length > 0) stack.at(-1)!.children.push(element);
      else if (root === null) root = element;
      stack.push(element);
    } else if (type === END_ELEMENT) {
      stack.pop();
    } else if (type === CDATA) {
      const parent = stack.at(-1);
      if (parent !== undefined && parent.text.length < 65_536)
        parent.text += str(bytes.u32(at + chunkHeader, 'character data'));
    }
    // Other chunks are skipped by their size, as the format allows.
    at += size;
  }
  return { root, elements, stringFaults: pool?.faults ?? 0, truncated };
}

/** The attribute of `element` named `name` in the Android namespace (or with no namespace). */
export function attribute(element: XmlElement, name: string): XmlAttribute | undefined {
  return element.attributes.find((a) => a.name === name);
}
