/**
 * The office converter (LibreOffice) as an engine is given it: its name, edges and options,
 * declared without loading anything, and `load`, which makes it (its warm workers start on the
 * first document).
 */
import type { ConverterDeclaration, ConverterRegistration } from '../../core/ports/index.js';
import { buildEdges } from './libreoffice-filters.js';
import { type LibreOfficeOptions, libreOfficeOptionsSchema } from './libreoffice-options.js';

/** What createLibreOfficeConverter() is. */
export const LIBREOFFICE: ConverterDeclaration<LibreOfficeOptions> = {
  name: 'libreoffice',
  edges: buildEdges(),
  optionsSchema: (to) => libreOfficeOptionsSchema(to),
};

export const LIBREOFFICE_REGISTRATION: ConverterRegistration<LibreOfficeOptions> = {
  ...LIBREOFFICE,
  load: async () => (await import('./index.js')).createLibreOfficeConverter(),
};
