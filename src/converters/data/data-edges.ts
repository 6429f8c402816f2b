/**
 * What the data converter offers the conversion graph, dependency-free (see
 * image/image-edges.ts for why).
 */
import type { ConversionEdge } from '../../core/ports/index.js';

const TREES = ['json', 'jsonl', 'yaml', 'toml', 'xml'] as const;

/**
 * The parser each tree format needs (JSON and JSON Lines are Node's own): a step loads only its
 * two formats' packages, so json -> yaml asks for yaml alone and vcf -> csv for nothing.
 */
const PARSER_PACKAGES: Partial<Record<(typeof TREES)[number], string>> = {
  yaml: 'yaml',
  toml: 'smol-toml',
  xml: 'fast-xml-parser',
};

function packagesOf(from: (typeof TREES)[number], to: (typeof TREES)[number]): Pick<ConversionEdge, 'packages'> {
  const packages = [PARSER_PACKAGES[from], PARSER_PACKAGES[to]].filter((pkg) => pkg !== undefined);
  return packages.length > 0 ? { packages } : {};
}
/** Formats that cannot hold every value of the others: XML (no types), TOML (no null, a table on top). */
const LOSSY = new Set<string>(['xml', 'toml']);

/**
 * Cost 1 each (one parse, one write, in-process). Lossy: to and from XML (attributes and text
 * become '@name' and '#text' keys, every XML value is text, JSON's types are not kept in XML),
 * and iCalendar/vCard to a table (only the listed fields). JSON <-> YAML keeps every value;
 * JSON Lines holds a JSON array's items one a line (any other value as its one line). To TOML, null
 * values are left out (TOML has no null) and the top level must be a table (object).
 * To CSV from JSON, YAML or XML the graph goes through json -> csv (the spreadsheet converter),
 * which refuses data that is not an array of records with a 4xx saying why.
 */
export const DATA_EDGES: readonly ConversionEdge[] = [
  ...TREES.flatMap((from) =>
    TREES.filter((to) => to !== from).map((to) => ({
      from,
      to,
      cost: 1,
      lossy: LOSSY.has(to) || from === 'xml',
      ...packagesOf(from, to),
      // TOML holds a table on top: a list (a sheet's rows, a calendar's events) cannot be one.
      ...(to === 'toml' ? { needsObject: true } : {}),
    })),
  ),
  ...(['ics', 'vcf'] as const).flatMap((from) =>
    (['csv', 'json'] as const).map((to) => ({ from, to, cost: 1, lossy: true, writesRecords: true })),
  ),
];
