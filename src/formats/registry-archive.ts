/** Archive formats (zip, tar, tar.gz, tar.bz2, tar.xz, 7z, rar). Conventions: registry.ts. */
import type { FormatDefinition } from './types.js';

export const ARCHIVE_FORMATS: readonly FormatDefinition[] = [];
