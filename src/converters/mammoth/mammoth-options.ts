/** The options of mammoth's conversions, dependency-free (the registration declares them). */
import { z } from 'zod';
import type { FormatName } from '../../core/formats/types.js';

const imagesOption = z.strictObject({
  /** Images of the document: 'embed' as data: URIs in the output, or 'drop'. Default 'embed'. */
  images: z.enum(['embed', 'drop']).optional(),
});

const noOptions = z.strictObject({});

/** What a mammoth conversion takes: what to do with images (a target that holds them). */
export type MammothOptions = z.output<typeof imagesOption>;

/** Options of a conversion to `to`: images only where the output can hold them. */
export function mammothOptionsSchema(to: FormatName): z.ZodType<MammothOptions> {
  return to === 'txt' ? noOptions : imagesOption;
}
