/**
 * The archive converter (bsdtar: zip, tar, 7z, rar...) as an engine is given it: its name, edges
 * and options, declared without loading anything, and `load`, which makes it.
 */
import type { ConverterDeclaration, ConverterRegistration } from '../../core/ports/index.js';
import { ARCHIVE_EDGES } from './archive-edges.js';
import { type ArchiveOptions, archiveOptionsSchema } from './archive-options.js';

/** What createArchiveConverter() is. */
export const ARCHIVE: ConverterDeclaration<ArchiveOptions> = {
  name: 'bsdtar',
  edges: ARCHIVE_EDGES,
  optionsSchema: (to) => archiveOptionsSchema(to),
};

export const ARCHIVE_REGISTRATION: ConverterRegistration<ArchiveOptions> = {
  ...ARCHIVE,
  load: async () => (await import('./index.js')).createArchiveConverter(),
};
