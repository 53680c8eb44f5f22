// The XML documents of an app bundle (base/manifest/AndroidManifest.xml): aapt2's protocol buffer
// form of compiled XML (XmlNode, XmlElement, XmlAttribute with a compiled Item), decoded into the same
// model as binary XML so the manifest reader serves both.
import { malformed } from './bytes.js';
import type { XmlAttribute, XmlDocument, XmlElement } from './axml.js';
import { MAX_XML_DEPTH, MAX_XML_ELEMENTS } from './axml.js';
import { ANDROID_ATTRIBUTES } from './attributes.js';
import { Proto } from './protobuf.js';
import type { ResValue } from './resValue.js';
import { VALUE, valueText } from './resValue.js';

const FORMAT = 'protobuf XML';

// Field numbers of aapt2's Resources.proto messages read here.
const NODE = { element: 1, text: 2, source: 3 } as const;
const ELEMENT = { namespaceUri: 2, name: 3, attribute: 4, child: 5 } as const;
const ATTRIBUTE = { namespaceUri: 1, name: 2, value: 3, resourceId: 5, item: 6 } as const;
const ITEM = { ref: 1, str: 2, rawStr: 3, styledStr: 4, file: 5, id: 6, prim: 7 } as const;
// Primitive's oneof: field number → Res_value type.
const PRIMITIVES: ReadonlyMap<number, number> = new Map([
  [1, VALUE.NULL],
  [2, VALUE.NULL],
  [3, VALUE.FLOAT],
  [4, VALUE.DIMENSION],
  [5, VALUE.FRACTION],
  [6, VALUE.INT_DEC],
  [7, VALUE.INT_HEX],
  [8, VALUE.BOOLEAN],
  [9, 0x1c],
  [10, 0x1d],
  [11, 0x1e],
  [12, 0x1f],
  [13, VALUE.DIMENSION],
  [14, VALUE.FRACTION],
]);

/** A compiled Item as the Res_value binary XML would hold, with its text when it is a string. */
export function itemValue(item: Proto | null): { value: ResValue; text: string | null } {
  if (item === null) return { value: { type: VALUE.STRING, data: 0 }, text: null };
  const ref = item.message(ITEM.ref);
  if (ref !== null) {
    const type =
      ref.number(1) === 1 ? VALUE.ATTRIBUTE : ref.message(5)?.number(1) ? VALUE.DYNAMIC_REFERENCE : VALUE.REFERENCE;
    return { value: { type, data: ref.low32(2) }, text: null };
  }
  for (const field of [ITEM.str, ITEM.rawStr, ITEM.styledStr, ITEM.file]) {
    const holder = item.message(field);
    if (holder !== null) return { value: { type: VALUE.STRING, data: 0 }, text: holder.string(1) };
  }
  const prim = item.message(ITEM.prim);
  if (prim !== null) {
    for (const [field, type] of PRIMITIVES) {
      if (!prim.has(field)) continue;
      const data = type === VALUE.BOOLEAN ? (prim.number(field) !== 0 ? 0xffffffff : 0) : prim.low32(field);
      return { value: { type, data }, text: null };
    }
  }
  return { value: { type: VALUE.NULL, data: 0 }, text: null };
}

function attributeOf(a: Proto): XmlAttribute {
  const resourceId = a.has(ATTRIBUTE.resourceId) ? a.low32(ATTRIBUTE.resourceId) : null;
  const named = a.string(ATTRIBUTE.name);
  const name = named !== '' ? named : ((resourceId !== null ? ANDROID_ATTRIBUTES.get(resourceId) : undefined) ?? '');
  const written = a.string(ATTRIBUTE.value);
  const { value, text } = itemValue(a.message(ATTRIBUTE.item));
  const namespace = a.string(ATTRIBUTE.namespaceUri);
  const shown = text ?? (a.has(ATTRIBUTE.item) ? valueText(value) : written);
  return {
    name,
    namespace: namespace === '' ? null : namespace,
    resourceId,
    raw: value.type === VALUE.STRING ? (text ?? written) : null,
    value,
    text: value.type === VALUE.REFERENCE && written.startsWith('@') ? written : shown,
  };
}

/**
 * Decodes an aapt2 protocol buffer XML document (an app bundle's manifest). A field that runs past its
 * message is `malformed`; a document past {@link MAX_XML_ELEMENTS} elements or {@link MAX_XML_DEPTH}
 * levels is cut and says so.
 */
export function parseProtoXml(buffer: Buffer): XmlDocument {
  const top = new Proto(buffer, FORMAT);
  const rootElement = top.message(NODE.element);
  if (rootElement === null) throw malformed(FORMAT, 'the document has no root element');
  let elements = 0;
  let truncated: string | null = null;
  const walk = (e: Proto, line: number, depth: number): XmlElement => {
    elements++;
    const element: XmlElement = {
      name: e.string(ELEMENT.name),
      namespace: e.string(ELEMENT.namespaceUri) || null,
      line,
      attributes: e.messages(ELEMENT.attribute).map(attributeOf),
      children: [],
      text: '',
    };
    for (const node of e.messages(ELEMENT.child)) {
      if (truncated !== null) break;
      const child = node.message(NODE.element);
      if (child === null) {
        if (node.has(NODE.text) && element.text.length < 65_536) element.text += node.string(NODE.text);
        continue;
      }
      if (elements >= MAX_XML_ELEMENTS || depth + 1 >= MAX_XML_DEPTH) {
        truncated = elements >= MAX_XML_ELEMENTS ? 'element-limit' : 'depth-limit';
        break;
      }
      element.children.push(walk(child, node.message(NODE.source)?.number(1) ?? 0, depth + 1));
    }
    return element;
  };
  const root = walk(rootElement, top.message(NODE.source)?.number(1) ?? 0, 0);
  return { root, elements, stringFaults: 0, truncated };
}
