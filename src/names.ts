/**
 * File names come from clients and are untrusted: they are kept only as display names
 * (Content-Disposition, outputName) and never used to build a path or a storage key.
 */

const MAX_NAME_LENGTH = 200;

/**
 * A safe display name: the last path segment (either separator), without control characters,
 * quotes or leading dots, at most 200 characters, keeping the extension. 'file' when nothing is left.
 */
export function sanitizeFileName(name: string): string {
  const lastSegment = name.split(/[/\\]/).pop() ?? '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  let clean = lastSegment.replace(/[\u0000-\u001f\u007f"<>|:*?]/g, '').trim();
  clean = clean.replace(/^\.+/, '').trim();
  if (clean.length > MAX_NAME_LENGTH) {
    const dot = clean.lastIndexOf('.');
    const extension = dot > 0 && clean.length - dot <= 16 ? clean.slice(dot) : '';
    clean = clean.slice(0, MAX_NAME_LENGTH - extension.length) + extension;
  }
  return clean === '' ? 'file' : clean;
}

/** The base name without its last extension ('photo.heic' -> 'photo'). */
export function baseName(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? fileName.slice(0, dot) : fileName;
}

/** The extension of a file name, lowercase, without the dot; '' when there is none. */
export function extensionOfName(fileName: string): string {
  const segment = fileName.split(/[/\\]/).pop() ?? '';
  const dot = segment.lastIndexOf('.');
  return dot > 0 ? segment.slice(dot + 1).toLowerCase() : '';
}

/** The name a result is downloaded under: the input's base name with the target's extension. */
export function outputNameFor(inputName: string, targetExtension: string): string {
  return `${baseName(sanitizeFileName(inputName))}.${targetExtension}`;
}
