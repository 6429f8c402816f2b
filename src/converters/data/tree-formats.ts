/**
 * JSON, YAML and XML read into one tree of plain values and written back out, with the limits
 * hostile input needs:
 * - YAML: aliases are resolved under yaml's maxAliasCount, so an alias bomb ("billion laughs":
 *   nine anchors each naming the one before nine times) is refused (UNSAFE_INPUT) instead of
 *   growing to 10^9 nodes; the core schema only (no custom tags, no code);
 * - XML: a DOCTYPE that declares entities is refused (UNSAFE_INPUT) before parsing: that covers
 *   entity expansion bombs and external entities (XXE) alike, and nothing is ever fetched; only
 *   XML's five predefined entities and character references are decoded;
 * - every format: nesting deeper than `maxDepth` is INPUT_LIMIT_EXCEEDED (writers recurse), and
 *   the input's size is bounded before it is read (data.ts).
 *
 * XML maps to the tree as fast-xml-parser does it: attributes as '@name', text beside child
 * elements as '#text', repeated elements as arrays, every value a string (XML has no types).
 */
import { FileconvError } from '../../core/errors.js';
import { loadToml, loadXmlParser, loadYaml } from '../../kit/libraries/data.js';

export type TreeFormat = 'json' | 'jsonl' | 'yaml' | 'toml' | 'xml';

export interface TreeLimits {
  /** Deepest nesting of arrays and objects accepted. */
  maxDepth: number;
  /** yaml's maxAliasCount: how much alias resolution may expand. */
  maxAliasCount: number;
}

const ATTRIBUTE_PREFIX = '@';
const TEXT_NODE = '#text';

/** INPUT_LIMIT_EXCEEDED when `value` nests deeper than `maxDepth` (walked without recursion). */
export function assertDepth(value: unknown, maxDepth: number): void {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== 'object') continue;
    if (depth >= maxDepth) {
      throw new FileconvError('INPUT_LIMIT_EXCEEDED', `The data nests deeper than ${maxDepth} levels`, {
        details: { maxDepth },
      });
    }
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
}

/** A parse error as CORRUPT_INPUT naming the format; a stack overflow (absurd nesting) as a limit. */
function parseFailed(format: TreeFormat, error: unknown): FileconvError {
  if (error instanceof FileconvError) return error;
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return new FileconvError('INPUT_LIMIT_EXCEEDED', `The ${format.toUpperCase()} nests too deeply to read`, {
      cause: error,
    });
  }
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0];
  return new FileconvError('CORRUPT_INPUT', `The ${format.toUpperCase()} could not be parsed: ${message}`, {
    cause: error,
  });
}

/**
 * Nesting depth of XML elements, counted on the text before any parser sees it (the parser's
 * tree building recurses): tags opened minus tags closed, roughly but never below the truth.
 */
function xmlDepth(text: string): number {
  let depth = 0;
  let max = 0;
  const tags = /<(\/?)([A-Za-z_][^\s/>]*)[^>]*?(\/?)>/g;
  for (let match = tags.exec(text); match; match = tags.exec(text)) {
    if (match[1]) depth--;
    else if (!match[3]) depth++;
    if (depth > max) max = depth;
  }
  return max;
}

/** UNSAFE_INPUT for a document type declaration that declares entities (bombs, XXE). */
export function assertNoEntityDeclarations(text: string): void {
  const doctype = text.search(/<!DOCTYPE/i);
  if (doctype === -1) return;
  if (/<!ENTITY/i.test(text.slice(doctype))) {
    throw new FileconvError(
      'UNSAFE_INPUT',
      'The XML declares entities in its DOCTYPE; entity expansion and external entities are never processed',
      { details: { reason: 'xml-entity-declaration' } },
    );
  }
}

async function parseXml(text: string, limits: TreeLimits): Promise<unknown> {
  assertNoEntityDeclarations(text);
  if (xmlDepth(text) > limits.maxDepth) {
    throw new FileconvError('INPUT_LIMIT_EXCEEDED', `The XML nests deeper than ${limits.maxDepth} levels`, {
      details: { maxDepth: limits.maxDepth },
    });
  }
  const { XMLParser, XMLValidator } = await loadXmlParser();
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    const { msg, line } = valid.err;
    throw new FileconvError('CORRUPT_INPUT', `The XML is not well-formed: ${msg} (line ${line})`, {
      details: { line },
    });
  }
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: ATTRIBUTE_PREFIX,
    textNodeName: TEXT_NODE,
    ignoreDeclaration: true,
    ignorePiTags: true,
    parseTagValue: false,
    parseAttributeValue: false,
    processEntities: true,
    htmlEntities: false,
    trimValues: true,
  });
  return parser.parse(text);
}

async function parseYaml(text: string, limits: TreeLimits): Promise<unknown> {
  const { parseAllDocuments } = await loadYaml();
  // YAML counts a lone CR as a line break (old Mac files; PyYAML reads them); the yaml package
  // does not, and took every line for one.
  const parsed = parseAllDocuments(text.replace(/\r\n?/g, '\n'), { schema: 'core', uniqueKeys: true, prettyErrors: false });
  const documents = Array.isArray(parsed) ? parsed : [parsed];
  const values = documents.map((document) => {
    const error = document.errors[0];
    // yaml reports its own stack overflow (absurd nesting) as a document error.
    if (error && /call stack/i.test(error.message)) throw new RangeError('Maximum call stack size exceeded');
    if (error) {
      throw new FileconvError(
        'CORRUPT_INPUT',
        `The YAML could not be parsed: ${error.message.split('\n')[0]}`,
      );
    }
    try {
      return document.toJS({ maxAliasCount: limits.maxAliasCount });
    } catch (cause) {
      if (cause instanceof ReferenceError && /alias/i.test(cause.message)) {
        throw new FileconvError(
          'UNSAFE_INPUT',
          'The YAML expands its aliases beyond the limit (an alias bomb): refused',
          { cause, details: { reason: 'yaml-alias-expansion', maxAliasCount: limits.maxAliasCount } },
        );
      }
      throw cause;
    }
  });
  // A stream of several documents ('---' between them) becomes an array of them.
  return values.length === 1 ? values[0] : values;
}

/** JSON Lines as the array of its values; blank lines are skipped, a bad one is named by number. */
function parseJsonLines(text: string): unknown[] {
  const values: unknown[] = [];
  for (const [index, line] of text.split(/\r?\n/).entries()) {
    if (line.trim() === '') continue;
    try {
      values.push(JSON.parse(line));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new FileconvError(
        'CORRUPT_INPUT',
        `The JSON Lines could not be parsed: line ${index + 1}: ${message}`,
        {
          details: { line: index + 1 },
        },
      );
    }
  }
  return values;
}

/** `text` of `format` as a tree of plain values, within `limits`. */
export async function parseTree(text: string, format: TreeFormat, limits: TreeLimits): Promise<unknown> {
  let value: unknown;
  try {
    if (format === 'json') value = JSON.parse(text);
    else if (format === 'jsonl') value = parseJsonLines(text);
    // Through JSON: TOML's dates and times become their ISO 8601 text, as in every other format here.
    else if (format === 'toml') value = JSON.parse(JSON.stringify((await loadToml()).parse(text)));
    else if (format === 'yaml') value = await parseYaml(text, limits);
    else value = await parseXml(text, limits);
  } catch (error) {
    throw parseFailed(format, error);
  }
  assertDepth(value, limits.maxDepth);
  return value;
}

/** An XML element name made of `key`: characters a name cannot hold become '_'. */
function xmlName(key: string): string {
  if (key.startsWith(ATTRIBUTE_PREFIX) || key === TEXT_NODE) return key;
  let name = key.replace(/[^\p{L}\p{N}_.-]/gu, '_');
  if (!/^[\p{L}_]/u.test(name)) name = `_${name}`;
  if (/^xml/i.test(name)) name = `_${name}`;
  return name;
}

/** The tree with every key a valid XML name, and null as an empty element. */
function forXml(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(forXml);
  if (value === null) return '';
  if (typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [xmlName(key), forXml(child)]));
}

/**
 * XML needs one root element: an object with a single key holding an object is that element;
 * anything else is wrapped in <root> (an array's items as <item> elements).
 */
function withRoot(value: unknown): Record<string, unknown> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value);
    const only = entries[0];
    if (
      entries.length === 1 &&
      only &&
      !only[0].startsWith(ATTRIBUTE_PREFIX) &&
      only[1] !== null &&
      typeof only[1] === 'object' &&
      !Array.isArray(only[1])
    ) {
      return value as Record<string, unknown>;
    }
    return { root: value };
  }
  return { root: Array.isArray(value) ? { item: value } : value };
}

/** The tree written as `format` text. */
export async function writeTree(value: unknown, format: TreeFormat): Promise<string> {
  if (format === 'json') return `${JSON.stringify(value, null, 2)}\n`;
  if (format === 'jsonl') {
    const items = Array.isArray(value) ? value : [value];
    return items.map((item) => `${JSON.stringify(item)}\n`).join('');
  }
  if (format === 'toml') {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      const kind = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
      throw new FileconvError(
        'UNSUPPORTED_CONVERSION',
        `TOML needs a table (an object) at the top level; this data's top level is ${kind}`,
        { details: { reason: 'toml-top-level' } },
      );
    }
    return (await loadToml()).stringify(value);
  }
  if (format === 'yaml') {
    const { stringify } = await loadYaml();
    return stringify(value, { aliasDuplicateObjects: false, lineWidth: 0 });
  }
  const { XMLBuilder } = await loadXmlParser();
  const builder = new XMLBuilder({
    ignoreAttributes: false,
    attributeNamePrefix: ATTRIBUTE_PREFIX,
    textNodeName: TEXT_NODE,
    format: true,
    indentBy: '  ',
    suppressEmptyNode: false,
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n${builder.build(withRoot(forXml(value)))}`;
}
