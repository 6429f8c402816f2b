/** Font formats (ttf, otf, woff, woff2). Conventions: registry.ts. */
import type { FormatDefinition } from './types.js';

export const FONT_FORMATS: readonly FormatDefinition[] = [];
