/**
 * SubStation Alpha (SSA, v4.00) and Advanced SubStation Alpha (ASS, v4.00+) are one format in
 * two dialects: the same sections, with different style fields and a 'Layer' where SSA has
 * 'Marked'. ffmpeg copies a script's header through untouched (an SSA read and written as ASS
 * stays SSA inside), so the dialect change is made here, field by field, keeping every style:
 * fonts, colours, bold/italic, borders, alignment, margins, and the override tags in the text.
 */

/** Style fields of each dialect, in the order the specifications list them. */
const SSA_STYLE = [
  'Name',
  'Fontname',
  'Fontsize',
  'PrimaryColour',
  'SecondaryColour',
  'TertiaryColour',
  'BackColour',
  'Bold',
  'Italic',
  'BorderStyle',
  'Outline',
  'Shadow',
  'Alignment',
  'MarginL',
  'MarginR',
  'MarginV',
  'AlphaLevel',
  'Encoding',
];
const ASS_STYLE = [
  'Name',
  'Fontname',
  'Fontsize',
  'PrimaryColour',
  'SecondaryColour',
  'OutlineColour',
  'BackColour',
  'Bold',
  'Italic',
  'Underline',
  'StrikeOut',
  'ScaleX',
  'ScaleY',
  'Spacing',
  'Angle',
  'BorderStyle',
  'Outline',
  'Shadow',
  'Alignment',
  'MarginL',
  'MarginR',
  'MarginV',
  'Encoding',
];
const SSA_EVENT = [
  'Marked',
  'Start',
  'End',
  'Style',
  'Name',
  'MarginL',
  'MarginR',
  'MarginV',
  'Effect',
  'Text',
];
const ASS_EVENT = [
  'Layer',
  'Start',
  'End',
  'Style',
  'Name',
  'MarginL',
  'MarginR',
  'MarginV',
  'Effect',
  'Text',
];

/** Values a field takes when the other dialect has none for it. */
const FIELD_DEFAULTS: Record<string, string> = {
  Underline: '0',
  StrikeOut: '0',
  ScaleX: '100',
  ScaleY: '100',
  Spacing: '0',
  Angle: '0',
  AlphaLevel: '0',
  Encoding: '1',
  Layer: '0',
  Marked: 'Marked=0',
  Outline: '1',
  Shadow: '0',
  BorderStyle: '1',
  MarginL: '0',
  MarginR: '0',
  MarginV: '0',
};

/** The same colour under its other name (SSA's TertiaryColour is ASS's OutlineColour). */
const SAME_FIELD: Record<string, string> = {
  TertiaryColour: 'OutlineColour',
  OutlineColour: 'TertiaryColour',
};

/**
 * SSA numbers its alignments 1-3 (bottom), 5-7 (top), 9-11 (middle); ASS uses the numeric
 * keypad (1-3 bottom, 4-6 middle, 7-9 top).
 */
const SSA_TO_ASS_ALIGNMENT: Record<string, string> = {
  '1': '1',
  '2': '2',
  '3': '3',
  '5': '7',
  '6': '8',
  '7': '9',
  '9': '4',
  '10': '5',
  '11': '6',
};
const ASS_TO_SSA_ALIGNMENT = Object.fromEntries(Object.entries(SSA_TO_ASS_ALIGNMENT).map(([a, b]) => [b, a]));

export type SubStationDialect = 'ass' | 'ssa';

/** Splits a Style/Dialogue value into its fields by `format`; the last field keeps its commas. */
function splitFields(value: string, format: readonly string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  let rest = value;
  for (const [index, name] of format.entries()) {
    if (index === format.length - 1) {
      fields[name] = rest;
      break;
    }
    const comma = rest.indexOf(',');
    fields[name] = (comma === -1 ? rest : rest.slice(0, comma)).trim();
    rest = comma === -1 ? '' : rest.slice(comma + 1);
  }
  return fields;
}

function joinFields(
  fields: Record<string, string>,
  format: readonly string[],
  convert: (name: string, value: string) => string,
): string {
  return format
    .map((name) => {
      const value = fields[name] ?? fields[SAME_FIELD[name] ?? ''] ?? FIELD_DEFAULTS[name] ?? '';
      return convert(name, value);
    })
    .join(',');
}

/**
 * The script in the other dialect: `to` 'ass' upgrades an SSA script, 'ssa' downgrades an ASS
 * one (ASS-only style fields are dropped; override tags in the text are kept, SSA players
 * ignore the ones they do not know). A script already in `to` comes back unchanged.
 */
export function convertSubStation(script: string, to: SubStationDialect): string {
  const lines = script.replace(/^\uFEFF/, '').split(/\r?\n/);
  const styleFormat = to === 'ass' ? ASS_STYLE : SSA_STYLE;
  const eventFormat = to === 'ass' ? ASS_EVENT : SSA_EVENT;
  let section = '';
  let sourceStyles: string[] | undefined;
  let sourceEvents: string[] | undefined;
  const out: string[] = [];
  const alignment = (value: string) =>
    (to === 'ass' ? SSA_TO_ASS_ALIGNMENT : ASS_TO_SSA_ALIGNMENT)[value] ?? value;
  const convert = (name: string, value: string) => {
    if (name === 'Alignment') return alignment(value);
    if (name === 'Marked' && !value.startsWith('Marked=')) return 'Marked=0';
    if (name === 'Layer' && !/^\d+$/.test(value)) return '0';
    return value;
  };
  for (const line of lines) {
    const header = /^\s*\[(.+)\]\s*$/.exec(line);
    if (header) {
      section = header[1]!.toLowerCase();
      const isStyles = section === 'v4 styles' || section === 'v4+ styles';
      out.push(isStyles ? (to === 'ass' ? '[V4+ Styles]' : '[V4 Styles]') : line);
      continue;
    }
    const entry = /^([A-Za-z]+):\s?(.*)$/.exec(line);
    if (!entry) {
      out.push(line);
      continue;
    }
    const [, key, value] = entry as unknown as [string, string, string];
    const inStyles = section === 'v4 styles' || section === 'v4+ styles';
    if (section === 'script info' && key === 'ScriptType') {
      out.push(`ScriptType: ${to === 'ass' ? 'v4.00+' : 'v4.00'}`);
    } else if (inStyles && key === 'Format') {
      sourceStyles = value.split(',').map((name) => name.trim());
      out.push(`Format: ${styleFormat.join(', ')}`);
    } else if (inStyles && key === 'Style' && sourceStyles) {
      out.push(`Style: ${joinFields(splitFields(value, sourceStyles), styleFormat, convert)}`);
    } else if (section === 'events' && key === 'Format') {
      sourceEvents = value.split(',').map((name) => name.trim());
      out.push(`Format: ${eventFormat.join(', ')}`);
    } else if (section === 'events' && sourceEvents && key !== 'Format' && key !== 'Style') {
      out.push(`${key}: ${joinFields(splitFields(value, sourceEvents), eventFormat, convert)}`);
    } else {
      out.push(line);
    }
  }
  return out.join('\n');
}

/**
 * The script without its embedded [Fonts] and [Graphics] sections: a burned-in subtitle must
 * not make libass load a font (a parser of its own, fed by the upload) or image from the input.
 * Text is drawn with the system's fonts (fontconfig) instead.
 */
export function withoutEmbeddedFiles(script: string): string {
  const out: string[] = [];
  let skipping = false;
  for (const line of script.split(/\r?\n/)) {
    const header = /^\s*\[(.+)\]\s*$/.exec(line);
    if (header) skipping = /^(fonts|graphics)$/i.test(header[1]!.trim());
    if (!skipping) out.push(line);
  }
  return out.join('\n');
}
