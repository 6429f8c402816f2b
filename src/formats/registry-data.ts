/** Subtitle formats (srt, vtt, ass, ssa). Conventions: registry.ts. */
import type { FormatDefinition } from './types.js';

export const SUBTITLE_FORMATS: readonly FormatDefinition[] = [];

/** Structured data formats (yaml, xml, ics, vcf). */
export const DATA_FORMATS: readonly FormatDefinition[] = [];
