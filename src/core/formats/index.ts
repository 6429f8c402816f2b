/**
 * The format registry, as the package entry `fileconv/formats`: what formats fileconv knows
 * (names, aliases, families, extensions, MIME types), lookups over them, detection of a file's
 * format from its first bytes and whether that agrees with the format it was declared as, and the
 * content of a `url` file (a web page to capture). The root entry re-exports the lookups; the
 * detection internals (the generic containers, the zip packages, the encrypted-OOXML check, the
 * URL-file parser) stay inside: import them from their own files.
 */
export { DETECTION_BYTES, detectFormat, type GenericContainer, isContentCompatible } from './detect.js';
export { type CustomFormat, createFormatRegistry, type FormatRegistry } from './format-registry.js';
export {
  extensionOf,
  formatFromExtension,
  formatFromMime,
  formatsByFamily,
  getFormat,
  mimeTypeOf,
  requireFormat,
} from './lookup.js';
export { FORMATS } from './registry.js';
export { FORMAT_FAMILIES, type FormatDefinition, type FormatFamily, type FormatName } from './types.js';
export { urlFileContent } from './url-file.js';
