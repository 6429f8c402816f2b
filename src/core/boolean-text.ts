/**
 * The one spelling of a yes/no setting given as text (an environment variable, a flag's value):
 * 1/0, true/false, on/off, yes/no, in any case. Every boolean fileconv reads from text goes
 * through here, the service's settings and the engines' own variables alike, so
 * FILECONV_LIMITS=off, FILECONV_WEBHOOK_ALLOW_PRIVATE=true and FILECONV_URL_CAPTURE=0 all mean
 * what they say. Anything else is refused, naming the setting and the accepted spellings,
 * rather than read as false.
 */
import { FileconvError } from './errors.js';

const TRUE_WORDS = ['1', 'true', 'on', 'yes'] as const;
const FALSE_WORDS = ['0', 'false', 'off', 'no'] as const;

/** The accepted spellings, for messages and documentation. */
export const BOOLEAN_SPELLINGS = '1/0, true/false, on/off or yes/no';

/** `text` as a boolean when it is one of the spellings, else undefined (no error: for values that may also be something else). */
export function booleanWordOf(text: string): boolean | undefined {
  const word = text.trim().toLowerCase();
  if ((TRUE_WORDS as readonly string[]).includes(word)) return true;
  if ((FALSE_WORDS as readonly string[]).includes(word)) return false;
  return undefined;
}

/**
 * `text` as a boolean; undefined when it is undefined or empty (not set). `name` is what the
 * message names (a variable, `--flag`). INVALID_OPTIONS for any other word.
 */
export function parseBooleanText(text: string | undefined, name: string): boolean | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const value = booleanWordOf(text);
  if (value !== undefined) return value;
  throw new FileconvError(
    'INVALID_OPTIONS',
    `${name} must be ${BOOLEAN_SPELLINGS} (any case), got ${JSON.stringify(text)}.`,
    { details: { setting: name, given: text } },
  );
}
