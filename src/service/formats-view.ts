/**
 * GET /api/formats: every registered format, and for each the targets reachable from it here
 * with whether the conversion is lossy, the formats it passes through, the converters that make
 * each step, and the JSON Schema of the options it accepts. Computed once per router.
 */
import { z } from 'zod';
import type { ServiceEngine } from './service-engine.js';
import type { FormatsResponse } from './wire/index.js';

type DescribedFormat = FormatsResponse['formats'][number];

export async function describeFormats(
  engine: Pick<ServiceEngine, 'formats' | 'optionsSchema' | 'plan'>,
): Promise<FormatsResponse> {
  const formats = await engine.formats();
  const schemaCache = new Map<unknown, DescribedFormat['targets'][number]['options']>();
  const described: DescribedFormat[] = [];
  for (const format of formats) {
    const targets: DescribedFormat['targets'] = [];
    for (const target of format.targets) {
      const schema = await engine.optionsSchema(format.name, target);
      let options = schemaCache.get(schema);
      if (options === undefined) {
        // io 'input': describe what a client may send (defaults make fields optional).
        options = schema ? z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) : null;
        schemaCache.set(schema, options);
      }
      // What a client needs to choose well: whether the result loses information (a lossy step
      // anywhere on the way, e.g. docx -> txt -> pdf when no layout-keeping engine is installed),
      // and the formats it passes through.
      const plan = await engine.plan(format.name, target).catch(() => undefined);
      targets.push({
        format: target,
        lossy: plan ? plan.lossySteps > 0 : null,
        path: plan ? [format.name, ...plan.steps.map((step) => step.to)] : null,
        // Which engine makes each step: html -> pdf says 'chromium' where it is installed and
        // 'libreoffice' where only that is.
        converters: plan ? plan.steps.map((step) => step.converter) : null,
        options,
      });
    }
    described.push({
      name: format.name,
      family: format.family,
      label: format.label,
      // Copies: the registry's lists are readonly, the wire's plain arrays.
      aliases: [...format.aliases],
      extensions: [...format.extensions],
      mimeTypes: [...format.mimeTypes],
      targets,
    });
  }
  return { formats: described };
}
