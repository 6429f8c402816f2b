/**
 * The conversion options `fileconv convert` passes to the engine, from its flags: only what was
 * given, so a converter's defaults apply otherwise.
 */
import { FileconvError } from '../../src/core/errors.js';

export interface ConvertFlags {
  /** Where results go: a file, a folder, a template with {name} and {ext}, or - for stdout. */
  output?: string;
  to?: string;
  from?: string;
  quality?: number;
  width?: number;
  height?: number;
  fit?: string;
  background?: string;
  lossless?: boolean;
  effort?: number;
  keepMetadata?: boolean;
  animated?: boolean;
  paper?: string;
  landscape?: boolean;
  margin?: string;
  javascript?: boolean;
  waitFor?: string;
  /** `--set key=value` (-O): any other converter option. */
  set?: Record<string, string>;
  /** `--option key=value`: the old name of --set, still taken. */
  option?: Record<string, string>;
  /** Replace an existing output (never an input). */
  force?: boolean;
  /** Leave an existing output and report its input as skipped. */
  skipExisting?: boolean;
  /** Folders: their subfolders too. */
  recursive?: boolean;
  /** Files converted at once. */
  jobs?: number;
  timeout?: number;
  quiet?: boolean;
  json?: boolean;
}

/** Conversion options from flags: only what was given, so converter defaults apply otherwise. */
export function optionsFromFlags(flags: ConvertFlags): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  if (flags.quality !== undefined) options.quality = flags.quality;
  if (flags.width !== undefined) options.width = flags.width;
  if (flags.height !== undefined) options.height = flags.height;
  if (flags.fit !== undefined) options.fit = flags.fit;
  if (flags.background !== undefined) options.background = flags.background;
  if (flags.lossless) options.lossless = true;
  if (flags.effort !== undefined) options.effort = flags.effort;
  if (flags.keepMetadata) options.stripMetadata = false;
  if (flags.animated === false) options.animated = false;
  // Web pages (the Chromium converter): its option names, from flags a print dialog would have.
  if (flags.paper !== undefined) options.paper = paperName(flags.paper);
  if (flags.landscape) options.landscape = true;
  if (flags.margin !== undefined) options.margin = marginSides(flags.margin);
  if (flags.javascript) options.javascript = true;
  if (flags.waitFor !== undefined) options.waitFor = flags.waitFor;
  for (const [key, value] of Object.entries({ ...flags.option, ...flags.set })) {
    options[key] = parseScalar(value);
  }
  return options;
}

/** 'letter' as the converter spells it ('Letter', 'A4'); the converter judges the name. */
function paperName(paper: string): string {
  const trimmed = paper.trim();
  return trimmed.charAt(0).toUpperCase() + trimmed.slice(1).toLowerCase();
}

/** CSS margin shorthand ('20mm', '10mm 15mm', up to four values, top first, clockwise) as the four sides. */
function marginSides(margin: string): Record<'top' | 'right' | 'bottom' | 'left', string> {
  const values = margin
    .trim()
    .split(/[\s,]+/)
    .filter(Boolean);
  if (values.length < 1 || values.length > 4) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      `--margin: expected one to four lengths as in CSS ('20mm', '10mm 15mm'), got '${margin}'.`,
    );
  }
  const [top, right = top, bottom = top, left = right] = values as [string, ...string[]];
  return { top, right, bottom, left };
}

/** `--set k=v` values arrive as text: numbers and booleans are passed as such. */
function parseScalar(value: string): unknown {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return value;
}
