/**
 * An engine's format registry: the built-in formats (registry.ts, looked up in lookup.ts,
 * detected in detect.ts) plus the formats a host defines for that engine alone
 * (`createConverter({ formats })`). A host format has its own name, extensions and MIME types,
 * none of them taken by another format, and a way to be recognised from its first bytes (a magic
 * prefix or a detect function), which is tried before the built-in detection: a host's text format
 * with its own first line is that format, not plain text. A host format matches only itself: a
 * file said to be one must be recognised as it (engine/planning.ts resolveSourceFormat).
 *
 * Code that deals only with built-in formats (converters, the CLI's own lookups) keeps the
 * module-level functions; the engine plans, detects and names results through its registry.
 */
import { FileconvError } from '../errors.js';
import {
  carriesAudio,
  extensionOf,
  formatCarriesAudio,
  formatFromExtension,
  formatFromMime,
  formatWords,
  getFormat,
  mimeTypeOf,
  wordsIn,
} from './lookup.js';
import { FORMATS } from './registry.js';
import {
  FORMAT_FAMILIES,
  type FormatDefinition,
  type FormatFamily,
  type FormatName,
  type WordsForm,
} from './types.js';

/** A format a host adds to one engine. */
export interface CustomFormat {
  /** Canonical name, lowercase and extension-like ('notes'); no built-in format's name or alias. */
  name: FormatName;
  family: FormatFamily;
  /** Human name ('Acme notes'). */
  label: string;
  /** Other names that resolve to it. Default none. */
  aliases?: readonly string[];
  /** File extensions without the dot, the preferred one first; none another format's. */
  extensions: readonly string[];
  /** MIME types, the preferred one first; none another format's. */
  mimeTypes: readonly string[];
  /** Whether it can hold several frames. */
  animated?: boolean;
  /** The bytes every file of the format starts with (a string is taken as its UTF-8 bytes). */
  magic?: string | Uint8Array;
  /** Whether `head` (a file's first bytes, up to DETECTION_BYTES) is of this format. */
  detect?(head: Uint8Array): boolean;
}

export interface FormatRegistry {
  /** Every format: the built-in ones, then the host's. */
  readonly formats: readonly FormatDefinition[];
  /** The format with this name or alias (case-insensitive); undefined when unknown. */
  get(nameOrAlias: string): FormatDefinition | undefined;
  /** Like get, but UNSUPPORTED_FORMAT (naming the input) when unknown. */
  require(nameOrAlias: string): FormatDefinition;
  /** The format of a file name or extension. */
  fromExtension(extOrFileName: string): FormatDefinition | undefined;
  /** The preferred extension of a format; 'bin' when unknown. */
  extensionOf(name: FormatName): string;
  /** The preferred MIME type of a format; application/octet-stream when unknown. */
  mimeTypeOf(name: FormatName): string;
  /** Whether content in this format can hold sound (video and audio families). */
  carriesAudio(name: FormatName): boolean;
  /** How content in this format holds words: text, pixels (OCR only) or none (lookup.ts wordsIn). */
  wordsIn(name: FormatName): WordsForm;
  /** The host format `head` is, when one recognises it. */
  detectCustom(head: Uint8Array): FormatName | undefined;
  /** Whether `name` is one of the host's formats. */
  isCustom(name: FormatName): boolean;
}

/** The built-in formats alone. */
export const BUILTIN_FORMATS: FormatRegistry = {
  formats: FORMATS,
  get: getFormat,
  require: (nameOrAlias) => requireIn(getFormat, nameOrAlias),
  fromExtension: formatFromExtension,
  extensionOf,
  mimeTypeOf,
  carriesAudio,
  wordsIn,
  detectCustom: () => undefined,
  isCustom: () => false,
};

function requireIn(
  get: (name: string) => FormatDefinition | undefined,
  nameOrAlias: string,
): FormatDefinition {
  const format = get(nameOrAlias);
  if (!format) {
    throw new FileconvError('UNSUPPORTED_FORMAT', `Unsupported format: '${nameOrAlias}'`, {
      details: { format: nameOrAlias },
    });
  }
  return format;
}

function normalised(input: string): string {
  const trimmed = input.trim().toLowerCase();
  return trimmed.startsWith('.') ? trimmed.slice(1) : trimmed;
}

/** The built-in registry plus `custom`; INVALID_OPTIONS naming `who` for a format that does not fit. */
export function createFormatRegistry(
  custom: readonly CustomFormat[] | undefined,
  who: string,
): FormatRegistry {
  if (!custom || custom.length === 0) return BUILTIN_FORMATS;
  if (!Array.isArray(custom)) {
    throw new FileconvError('INVALID_OPTIONS', `${who}: formats must be an array of format definitions.`);
  }
  const byName = new Map<string, FormatDefinition>();
  const byExtension = new Map<string, FormatDefinition>();
  const byMime = new Map<string, FormatDefinition>();
  const detectors: (readonly [FormatName, (head: Uint8Array) => boolean])[] = [];
  const taken = (what: string, key: string, owner: string | undefined) => {
    if (owner !== undefined) {
      throw new FileconvError(
        'INVALID_OPTIONS',
        `${who}: format ${what} '${key}' is taken by the format '${owner}'.`,
      );
    }
  };
  const definitions = custom.map((format) => {
    const definition = checked(format, who);
    for (const key of [definition.name, ...definition.aliases]) {
      taken('name', key, (getFormat(key) ?? byName.get(key))?.name);
      byName.set(key, definition);
    }
    for (const extension of definition.extensions) {
      taken('extension', extension, (formatFromExtension(extension) ?? byExtension.get(extension))?.name);
      byExtension.set(extension, definition);
    }
    for (const mime of definition.mimeTypes) {
      taken('MIME type', mime, (formatFromMime(mime) ?? byMime.get(mime))?.name);
      byMime.set(mime, definition);
    }
    detectors.push([definition.name, detectorOf(format)]);
    return definition;
  });
  const get = (nameOrAlias: string) => byName.get(normalised(nameOrAlias)) ?? getFormat(nameOrAlias);
  return {
    formats: [...FORMATS, ...definitions],
    get,
    require: (nameOrAlias) => requireIn(get, nameOrAlias),
    fromExtension(extOrFileName) {
      const base = (extOrFileName.trim().split(/[\\/]/).pop() ?? '').toLowerCase();
      const parts = base.split('.');
      return (
        byExtension.get(parts.slice(-2).join('.')) ??
        byExtension.get(parts.at(-1) ?? '') ??
        formatFromExtension(extOrFileName)
      );
    },
    extensionOf: (name) => get(name)?.extensions[0] ?? extensionOf(name),
    mimeTypeOf: (name) => get(name)?.mimeTypes[0] ?? mimeTypeOf(name),
    carriesAudio: (name) => formatCarriesAudio(get(name)),
    wordsIn: (name) => formatWords(get(name)),
    detectCustom(head) {
      if (head.length === 0) return undefined;
      return detectors.find(([, detect]) => detect(head))?.[0];
    },
    isCustom: (name) => byName.has(normalised(name)),
  };
}

/** `format` as a registry entry, checked. */
function checked(format: CustomFormat, who: string): FormatDefinition {
  const problem = (message: string) =>
    new FileconvError('INVALID_OPTIONS', `${who}: format ${JSON.stringify(format?.name)}: ${message}.`);
  const lowerWords = (values: unknown) =>
    Array.isArray(values) &&
    values.every((value) => typeof value === 'string' && /^[a-z0-9][a-z0-9.+-]*$/.test(value));
  if (typeof format?.name !== 'string' || !/^[a-z0-9][a-z0-9+-]*$/.test(format.name)) {
    throw problem('name must be lowercase letters and digits (extension-like)');
  }
  if (!(FORMAT_FAMILIES as readonly string[]).includes(format.family)) {
    throw problem(`family must be one of ${FORMAT_FAMILIES.join(', ')}`);
  }
  if (typeof format.label !== 'string' || format.label === '')
    throw problem('label must be a name people read');
  if (!lowerWords(format.extensions) || format.extensions.length === 0) {
    throw problem('extensions must be one or more lowercase extensions without the dot');
  }
  if (format.aliases !== undefined && !lowerWords(format.aliases))
    throw problem('aliases must be lowercase names');
  const mimeTypes = format.mimeTypes;
  if (
    !Array.isArray(mimeTypes) ||
    mimeTypes.length === 0 ||
    !mimeTypes.every((m) => /^[a-z0-9.+-]+\/[a-z0-9.+-]+$/.test(m))
  ) {
    throw problem('mimeTypes must be one or more lowercase MIME types');
  }
  if (format.magic === undefined && typeof format.detect !== 'function') {
    throw problem('give magic (the bytes it starts with) or detect(head), so its files are recognised');
  }
  return {
    name: format.name,
    family: format.family,
    label: format.label,
    aliases: format.aliases ?? [],
    extensions: format.extensions,
    mimeTypes,
    detectable: true,
    ...(format.animated ? { animated: true } : {}),
  };
}

/** How a host format is recognised: its magic prefix, and its detect function, when given. */
function detectorOf(format: CustomFormat): (head: Uint8Array) => boolean {
  const magic = typeof format.magic === 'string' ? new TextEncoder().encode(format.magic) : format.magic;
  return (head) => {
    if (magic && !(head.length >= magic.length && magic.every((byte, i) => head[i] === byte))) return false;
    return format.detect ? format.detect(head) : true;
  };
}
