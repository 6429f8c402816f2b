/**
 * The format registry: what formats fileconv knows (names, aliases, families, extensions, MIME
 * types), lookups over them, and detection of a file's format from its bytes.
 */
export {
  DETECTION_BYTES,
  detectFormat,
  GENERIC_CONTAINERS,
  type GenericContainer,
  isContentCompatible,
} from './detect.js';
export { isEncryptedOoxml, ZIP_PACKAGES } from './detect-containers.js';
export {
  BUILTIN_FORMATS,
  type CustomFormat,
  createFormatRegistry,
  type FormatRegistry,
} from './format-registry.js';
export {
  carriesAudio,
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
export { parseUrlFile, urlFileContent } from './url-file.js';
