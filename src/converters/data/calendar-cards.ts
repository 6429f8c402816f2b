/**
 * iCalendar (RFC 5545) events and vCard (RFC 6350, and 3.0/2.1 as phones export them) contacts
 * as records. Both are the same line format: long lines folded (a line starting with a space or
 * tab continues the one before), 'NAME;PARAM=x:value', components between BEGIN: and END:, and
 * backslash escapes in text. A parser of ~100 lines is all the fields below need; ical.js would
 * add recurrence and time-zone arithmetic that a table of events does not show.
 */
import { FileconvError } from '../../core/errors.js';

interface ContentLine {
  name: string;
  params: Record<string, string>;
  value: string;
}

/** Most components (events or cards) read from one file: a bound on the output, not the input. */
export const MAX_RECORDS = 100_000;

/** The unfolded content lines. */
function contentLines(text: string): ContentLine[] {
  const unfolded = text.replace(/^\uFEFF/, '').replace(/\r?\n[ \t]/g, '');
  const lines: ContentLine[] = [];
  for (const raw of unfolded.split(/\r?\n/)) {
    if (raw.trim() === '') continue;
    // The value starts at the first colon outside a quoted parameter value.
    let colon = -1;
    let quoted = false;
    for (let i = 0; i < raw.length; i++) {
      const char = raw[i];
      if (char === '"') quoted = !quoted;
      else if (char === ':' && !quoted) {
        colon = i;
        break;
      }
    }
    if (colon === -1) continue;
    const [name = '', ...paramParts] = raw.slice(0, colon).split(';');
    const params: Record<string, string> = {};
    for (const part of paramParts) {
      const eq = part.indexOf('=');
      // vCard 2.1 writes bare types ('TEL;CELL:...').
      if (eq === -1) params.TYPE = params.TYPE ? `${params.TYPE},${part}` : part;
      else params[part.slice(0, eq).toUpperCase()] = part.slice(eq + 1).replace(/^"|"$/g, '');
    }
    lines.push({ name: name.toUpperCase().replace(/^ITEM\d+\./, ''), params, value: raw.slice(colon + 1) });
  }
  return lines;
}

/** TEXT values: \n, \, \; and \\ escapes undone. */
function unescapeText(value: string): string {
  return value.replace(/\\([nN,;\\])/g, (_, char: string) => (char === 'n' || char === 'N' ? '\n' : char));
}

/** The components named `kind` (VEVENT, VCARD) as their lines; nested components are skipped. */
function components(text: string, kind: string, format: string): ContentLine[][] {
  const found: ContentLine[][] = [];
  let current: ContentLine[] | undefined;
  let nested = 0;
  let sawBegin = false;
  for (const line of contentLines(text)) {
    if (line.name === 'BEGIN') {
      sawBegin = true;
      if (current) nested++;
      else if (line.value.trim().toUpperCase() === kind) current = [];
    } else if (line.name === 'END') {
      if (current && nested > 0) nested--;
      else if (current && line.value.trim().toUpperCase() === kind) {
        found.push(current);
        current = undefined;
        if (found.length > MAX_RECORDS) {
          throw new FileconvError('INPUT_LIMIT_EXCEEDED', `The file holds more than ${MAX_RECORDS} records`, {
            details: { maxRecords: MAX_RECORDS },
          });
        }
      }
    } else if (current && nested === 0) {
      current.push(line);
    }
  }
  if (!sawBegin) throw new FileconvError('CORRUPT_INPUT', `The file is not ${format}: it has no BEGIN line`);
  return found;
}

/**
 * A DATE or DATE-TIME as ISO 8601: '20240315T090000Z' -> '2024-03-15T09:00:00Z', a date alone
 * -> '2024-03-15'; a local time with a TZID keeps its zone in brackets (RFC 9557).
 */
function isoDate(line: ContentLine | undefined): string {
  if (!line) return '';
  const match = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?$/.exec(line.value.trim());
  if (!match) return line.value.trim();
  const [, y, mo, d, h, mi, s, z] = match;
  if (h === undefined) return `${y}-${mo}-${d}`;
  const zone = z ? 'Z' : line.params.TZID ? `[${line.params.TZID}]` : '';
  return `${y}-${mo}-${d}T${h}:${mi}:${s}${zone}`;
}

export interface CalendarEvent {
  summary: string;
  start: string;
  end: string;
  location: string;
  description: string;
}

/** The events (VEVENT) of an iCalendar file, in file order. */
export function readEvents(text: string): CalendarEvent[] {
  return components(text, 'VEVENT', 'iCalendar').map((lines) => {
    const get = (name: string) => lines.find((line) => line.name === name);
    const text = (name: string) => unescapeText(get(name)?.value ?? '');
    return {
      summary: text('SUMMARY'),
      start: isoDate(get('DTSTART')),
      end: isoDate(get('DTEND')),
      location: text('LOCATION'),
      description: text('DESCRIPTION'),
    };
  });
}

export interface Contact {
  name: string;
  emails: string[];
  phones: string[];
  organization: string;
}

/** The contacts (VCARD) of a vCard file, in file order. */
export function readContacts(text: string): Contact[] {
  return components(text, 'VCARD', 'vCard').map((lines) => {
    const all = (name: string) => lines.filter((line) => line.name === name).map((line) => line.value.trim());
    // N is 'family;given;additional;prefix;suffix': the display name when FN is missing.
    const structured = all('N')[0]?.split(';') ?? [];
    const fromN = [structured[3], structured[1], structured[2], structured[0], structured[4]]
      .filter((part) => part)
      .join(' ');
    return {
      name: unescapeText(all('FN')[0] ?? fromN),
      emails: all('EMAIL').map(unescapeText),
      phones: all('TEL').map((value) => value.replace(/^tel:/i, '')),
      organization: unescapeText((all('ORG')[0] ?? '').split(';').filter(Boolean).join(', ')),
    };
  });
}
