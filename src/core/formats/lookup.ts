/**
 * Lookups over the format registry: by name or alias, extension, MIME type and family.
 *
 * The maps are built once when the module loads, so every lookup is one Map access. Building them
 * also enforces the registry's uniqueness rules: a name, alias, extension or MIME type claimed by
 * two formats is a programming error and fails at import, not as a silently wrong answer later.
 */
import { FileconvError } from '../errors.js';
import { FORMATS } from './registry.js';
import {
  FORMAT_FAMILIES,
  type FormatDefinition,
  type FormatFamily,
  type FormatName,
  type WordsForm,
} from './types.js';

/** What mimeTypeOf answers for a name the registry does not know. */
const FALLBACK_MIME = 'application/octet-stream';
/** What extensionOf answers for a name the registry does not know (the octet-stream habit). */
const FALLBACK_EXTENSION = 'bin';

function index(keysOf: (format: FormatDefinition) => readonly string[], what: string) {
  const map = new Map<string, FormatDefinition>();
  for (const format of FORMATS) {
    for (const key of keysOf(format)) {
      const owner = map.get(key);
      if (owner && owner !== format) {
        throw new FileconvError(
          'INTERNAL',
          `Format registry: ${what} '${key}' belongs to both '${owner.name}' and '${format.name}'`,
        );
      }
      map.set(key, format);
    }
  }
  return map;
}

const byName = index((format) => [format.name, ...format.aliases], 'name or alias');
const byExtension = index((format) => format.extensions, 'extension');
const byMime = index((format) => format.mimeTypes, 'MIME type');
const byFamily = new Map<FormatFamily, readonly FormatDefinition[]>(
  FORMAT_FAMILIES.map((family) => [family, Object.freeze(FORMATS.filter((f) => f.family === family))]),
);

function normaliseName(input: string): string {
  const trimmed = input.trim().toLowerCase();
  return trimmed.startsWith('.') ? trimmed.slice(1) : trimmed;
}

/** The format with this name or alias ('JPEG', ' .jpg'), case-insensitive; undefined when unknown. */
export function getFormat(nameOrAlias: string): FormatDefinition | undefined {
  return byName.get(normaliseName(nameOrAlias));
}

/** Like getFormat, but throws UNSUPPORTED_FORMAT (naming the input) when the format is unknown. */
export function requireFormat(nameOrAlias: string): FormatDefinition {
  const format = getFormat(nameOrAlias);
  if (!format) {
    throw new FileconvError('UNSUPPORTED_FORMAT', `Unsupported format: '${nameOrAlias}'`, {
      details: { format: nameOrAlias },
    });
  }
  return format;
}

/**
 * The format of a file name ('photo.JPG', 'a/b.tar.mp4', 'backup.tar.gz'), a dotted ('.jpg') or
 * bare ('jpg', 'tar.gz') extension. A two-part extension the registry knows ('tar.gz') is tried
 * before the last part alone, which for 'backup.tar.gz' would be a lone gzip file.
 */
export function formatFromExtension(extOrFileName: string): FormatDefinition | undefined {
  // Only the last path segment counts, so a dot in a directory name ('v1.2/readme') is not an extension.
  const base = (extOrFileName.trim().split(/[\\/]/).pop() ?? '').toLowerCase();
  const parts = base.split('.');
  return byExtension.get(parts.slice(-2).join('.')) ?? byExtension.get(parts.at(-1) ?? '');
}

/** The format of a MIME type, ignoring case and parameters ('Text/CSV; charset=utf-8'). */
export function formatFromMime(mime: string): FormatDefinition | undefined {
  const essence = mime.split(';', 1)[0] ?? '';
  return byMime.get(essence.trim().toLowerCase());
}

/** The preferred MIME type of a format (name or alias); application/octet-stream when unknown. */
export function mimeTypeOf(name: FormatName): string {
  return getFormat(name)?.mimeTypes[0] ?? FALLBACK_MIME;
}

/** The preferred extension (without the dot) of a format (name or alias); 'bin' when unknown. */
export function extensionOf(name: FormatName): string {
  return getFormat(name)?.extensions[0] ?? FALLBACK_EXTENSION;
}

/** The formats of one family, in registry order. */
export function formatsByFamily(family: FormatFamily): readonly FormatDefinition[] {
  return byFamily.get(family) ?? [];
}

/**
 * Whether content in this format can hold sound: video and audio formats. Images (a GIF or an
 * animated WebP too) and documents cannot, so nothing converted from them has a soundtrack. An
 * unknown name is given the benefit of the doubt.
 */
export function carriesAudio(name: FormatName): boolean {
  return formatCarriesAudio(getFormat(name));
}

/** carriesAudio over a definition (a host's format too); undefined is an unknown format. */
export function formatCarriesAudio(format: FormatDefinition | undefined): boolean {
  return format === undefined || format.family === 'video' || format.family === 'audio';
}

/**
 * How content in this format holds words: as text a converter reads ('text': documents, data,
 * subtitles, drawn images), as pixels only OCR reads ('pixels': photos and scans), or not at all
 * ('none': sound, and video, whose frames are no scans). An unknown name is given the benefit of
 * the doubt, as in carriesAudio.
 */
export function wordsIn(name: FormatName): WordsForm {
  return formatWords(getFormat(name));
}

/** wordsIn over a definition (a host's format too); undefined is an unknown format. */
export function formatWords(format: FormatDefinition | undefined): WordsForm {
  if (format === undefined) return 'text';
  if (format.family === 'video' || format.family === 'audio') return 'none';
  if (format.family === 'image' && !format.vector) return 'pixels';
  return 'text';
}
