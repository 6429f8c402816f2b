/**
 * Subtitle and structured-data entries of the format registry (conventions: registry.ts).
 *
 * SubRip, WebVTT, ASS and SSA are text with a recognisable head (detect-text.ts; file-type knows
 * WebVTT). JSON, JSON Lines, YAML and TOML have no signature: their bytes are just text, so detection reports 'txt'
 * and the compatibility rules in detect.ts accept it for them. XML is recognised by its
 * declaration only after every more specific XML format (svg, html...) has had its say.
 */
import type { FormatDefinition } from './types.js';

export const SUBTITLE_FORMATS: readonly FormatDefinition[] = [
  {
    name: 'srt',
    family: 'subtitle',
    label: 'SubRip subtitles',
    aliases: ['subrip'],
    extensions: ['srt'],
    mimeTypes: ['application/x-subrip', 'text/x-srt'],
    detectable: true,
  },
  {
    name: 'vtt',
    family: 'subtitle',
    label: 'WebVTT subtitles',
    aliases: ['webvtt'],
    extensions: ['vtt'],
    mimeTypes: ['text/vtt'],
    detectable: true,
  },
  {
    name: 'ass',
    family: 'subtitle',
    label: 'Advanced SubStation Alpha subtitles',
    aliases: [],
    extensions: ['ass'],
    mimeTypes: ['text/x-ass'],
    detectable: true,
  },
  {
    name: 'ssa',
    family: 'subtitle',
    label: 'SubStation Alpha subtitles',
    aliases: [],
    extensions: ['ssa'],
    mimeTypes: ['text/x-ssa'],
    detectable: true,
  },
];

/** Structured data formats (json, jsonl, yaml, toml, xml, ics, vcf). */
export const DATA_FORMATS: readonly FormatDefinition[] = [
  {
    // Any JSON value; the spreadsheet converter reads and writes an array of row objects.
    name: 'json',
    family: 'data',
    label: 'JSON data',
    aliases: [],
    extensions: ['json'],
    mimeTypes: ['application/json', 'text/json'],
    detectable: false,
  },
  {
    // One JSON value per line (logs, exports, datasets); 'ndjson' is the same thing's other name.
    name: 'jsonl',
    family: 'data',
    label: 'JSON Lines',
    aliases: ['ndjson'],
    extensions: ['jsonl', 'ndjson'],
    mimeTypes: ['application/jsonl', 'application/x-ndjson', 'application/x-jsonlines'],
    detectable: false,
  },
  {
    name: 'yaml',
    family: 'data',
    label: 'YAML data',
    aliases: ['yml'],
    extensions: ['yaml', 'yml'],
    // application/yaml is the IANA registration (RFC 9512); the others are what tools send.
    mimeTypes: ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'],
    detectable: false,
  },
  {
    name: 'toml',
    family: 'data',
    label: 'TOML data',
    aliases: [],
    extensions: ['toml'],
    mimeTypes: ['application/toml'],
    detectable: false,
  },
  {
    name: 'xml',
    family: 'data',
    label: 'XML data',
    aliases: [],
    extensions: ['xml'],
    mimeTypes: ['application/xml', 'text/xml'],
    detectable: true,
  },
  {
    name: 'ics',
    family: 'data',
    label: 'iCalendar events',
    aliases: ['ical', 'icalendar'],
    extensions: ['ics', 'ical'],
    mimeTypes: ['text/calendar'],
    detectable: true,
  },
  {
    name: 'vcf',
    family: 'data',
    label: 'vCard contacts',
    aliases: ['vcard'],
    extensions: ['vcf', 'vcard'],
    mimeTypes: ['text/vcard', 'text/x-vcard', 'text/directory'],
    detectable: true,
  },
];
