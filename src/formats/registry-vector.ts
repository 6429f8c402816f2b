/** Print and vector formats (eps, ps, ai, emf, wmf), rendered through Ghostscript or LibreOffice. Conventions: registry.ts. */
import type { FormatDefinition } from './types.js';

export const VECTOR_FORMATS: readonly FormatDefinition[] = [];
