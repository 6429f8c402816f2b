/** The options of subtitle conversions, dependency-free (the registration declares them). */
import { z } from 'zod';
import type { FormatName } from '../../core/formats/types.js';

/** A WHATWG encoding label: what TextDecoder (and so this converter) understands. */
export const charsetOption = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{2,40}$/)
  .describe(
    "The input's character set when it is not UTF-8 (UTF-16 with a byte-order mark is read as such): 'windows-1252', 'iso-8859-2', 'shift_jis', ... Default: UTF-8, and windows-1252 when the bytes are not UTF-8.",
  );

const subtitleOptions = z.strictObject({ charset: charsetOption.optional() });

/** What a subtitle conversion takes (to any target): the input's character set. */
export type SubtitleOptions = z.output<typeof subtitleOptions>;

export const subtitleOptionsSchema: (to: FormatName) => z.ZodType<SubtitleOptions> = () => subtitleOptions;
