/**
 * The data converter (JSON, YAML, TOML, XML, iCalendar, vCard) as an engine is given it: its name
 * and edges, declared without loading its libraries, and `load`, which makes it with every
 * conversion run in an isolated child process (kit/isolation: a YAML alias bomb costs its child).
 */
import { z } from 'zod';
import type { ConverterDeclaration, ConverterRegistration } from '../../core/ports/index.js';
import type { IsolatedFactory } from '../../kit/isolation/process-protocol.js';
import { DATA_EDGES } from './data-edges.js';

/** Its conversions take no options. */
export const DATA_OPTIONS = z.strictObject({});

/** What createDataConverter() is. */
export const DATA: ConverterDeclaration = {
  name: 'data',
  edges: DATA_EDGES,
  optionsSchema: () => DATA_OPTIONS,
};

/** Where the isolation child makes its copy of the converter (a build entry of its own: tsup.config.ts). */
export const DATA_FACTORY: IsolatedFactory = { module: 'src/converters/data/index', factory: 'createDataConverter' };

export const DATA_REGISTRATION: ConverterRegistration = {
  ...DATA,
  async load() {
    const [{ createDataConverter }, { isolateConverter }] = await Promise.all([
      import('./index.js'),
      import('../../kit/isolation/isolated.js'),
    ]);
    return isolateConverter(createDataConverter(), DATA_FACTORY);
  },
};
