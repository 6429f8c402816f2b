/** Types of the format registry. */

export const FORMAT_FAMILIES = [
  'image',
  'video',
  'audio',
  'document',
  'spreadsheet',
  'presentation',
  'ebook',
  'subtitle',
  'data',
  'font',
  'archive',
] as const;
export type FormatFamily = (typeof FORMAT_FAMILIES)[number];

/** A canonical format name: lowercase, extension-like ('jpg', 'mp4', 'docx'). */
export type FormatName = string;

export interface FormatDefinition {
  /** Canonical name, lowercase ('jpg'). */
  name: FormatName;
  family: FormatFamily;
  /** Human name ('JPEG image'). */
  label: string;
  /** Other names that resolve to this format ('jpeg', 'jpe'). Lowercase. */
  aliases: readonly string[];
  /** File extensions without the dot, the preferred one first. */
  extensions: readonly string[];
  /** MIME types, the preferred one first. */
  mimeTypes: readonly string[];
  /** Whether detectFormat can recognise it from its bytes (magic numbers or a reliable text sniff). */
  detectable: boolean;
  /** Whether it can hold several frames (animated gif/webp, video). */
  animated?: boolean;
  /**
   * Whether an image is drawn (shapes and text: svg, eps, emf) rather than only pixels: its words
   * are text a converter reads, where a raster image's are pixels only OCR reads. Default false.
   */
  vector?: boolean;
}

/** How content holds words: as text, as pixels only OCR reads, or not at all (see wordsIn). */
export type WordsForm = 'text' | 'pixels' | 'none';

/** How a result is wrapped: one file of the target format (undefined) or a zip of several. */
export type OutputPackaging = 'zip';
