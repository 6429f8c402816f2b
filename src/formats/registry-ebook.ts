/** E-book formats (mobi, azw3, fb2). Conventions: registry.ts. */
import type { FormatDefinition } from './types.js';

export const EBOOK_FORMATS: readonly FormatDefinition[] = [];
