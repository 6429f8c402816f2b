/**
 * GET /api/formats: every registered format, and for each the targets reachable from it here
 * with the JSON Schema of the options that conversion accepts. Computed once per router.
 */
import { z } from 'zod';
import type { Engine } from '../../src/engine.js';

export async function describeFormats(engine: Engine) {
  const formats = await engine.formats();
  const schemaCache = new Map<unknown, unknown>();
  const described = [];
  for (const format of formats) {
    const targets = [];
    for (const target of format.targets) {
      const schema = await engine.optionsSchema(format.name, target);
      let options = schemaCache.get(schema);
      if (options === undefined) {
        // io 'input': describe what a client may send (defaults make fields optional).
        options = schema ? z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) : null;
        schemaCache.set(schema, options);
      }
      targets.push({ format: target, options });
    }
    described.push({
      name: format.name,
      family: format.family,
      label: format.label,
      aliases: format.aliases,
      extensions: format.extensions,
      mimeTypes: format.mimeTypes,
      targets,
    });
  }
  return { formats: described };
}
