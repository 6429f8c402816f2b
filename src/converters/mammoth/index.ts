/**
 * The Word converter, all in JavaScript: docx to HTML with mammoth, and on to Markdown and plain
 * text with turndown (mammoth's own Markdown writer is deprecated; its authors recommend exactly
 * this). Mammoth maps document structure (headings, lists, tables, emphasis, links, images), not
 * looks: layout, fonts, colours, headers and footers are lost, so every edge is lossy. For a
 * faithful PDF, a LibreOffice converter (docx -> pdf, not lossy) wins the path search.
 *
 * Safety: before mammoth (JSZip) inflates anything into memory, the zip is checked for bombs and
 * damage (office/zip-safety.ts). Mammoth's `externalFileAccess` stays off: with it on, an image
 * linked to "file:///etc/passwd" or a relative path would be read from the server's disk into the
 * output. With it off, a linked (external) image fails to read and mammoth drops it; it is never
 * turned into an <img src="http://...">, which would make whoever opens the HTML fetch that URL (a
 * tracking pixel, or a request into the viewer's network). Links whose URL would run script
 * (javascript:, vbscript:, data:) are neutralised to "#".
 */
import { z } from 'zod';
import { raceAbort, throwIfAborted } from '../../core/abort.js';
import { parseOptions } from '../../core/options.js';
import type { Availability, ConvertContext, Converter, ConvertResult } from '../../core/ports/index.js';
import { edgeGuard, runInProcess, unavailable } from '../../kit/converter-kit.js';
import { missingPackages, notInstalled } from '../../kit/engine-packages.js';
import { loadMammoth, loadTurndown, packageVersion } from '../../kit/libraries/documents.js';
import { mapDocumentError } from '../../kit/text/document-errors.js';
import { htmlToMarkdown, htmlToText } from '../../kit/text/html-convert.js';
import { htmlDocument } from '../../kit/text/html-document.js';
import { isScriptableUrl } from '../../kit/text/markdown-html.js';
import { writeOutput } from '../../kit/text/text-io.js';
import { assertSafeZip, type ZipLimits, zipLimitsSchema } from '../../kit/zip-safety.js';
import { MAMMOTH_EDGES } from './mammoth-edges.js';
import type { MammothOptions } from './mammoth-options.js';
import { MAMMOTH } from './registration.js';

export { type MammothOptions, mammothOptionsSchema } from './mammoth-options.js';
export { MAMMOTH_FACTORY, MAMMOTH_REGISTRATION } from './registration.js';

export interface MammothConverterOptions {
  /**
   * Decompression limits checked before mammoth opens a docx. Default DEFAULT_ZIP_LIMITS
   * (office/zip-safety.ts), with XML parts capped at MAX_XML_PART_BYTES.
   */
  zip?: Partial<ZipLimits>;
}

/**
 * Largest XML part mammoth is given, 24 MiB (about 12,000 pages of text). mammoth parses a part
 * whole into a tree of about 15 bytes of heap per byte of XML: 34 MB of XML passed the 512 MB
 * heap of an isolated converter in tests. Past this, the docx is refused from its zip directory
 * in milliseconds instead of at the heap cap; LibreOffice (docx -> pdf) has no such cap.
 */
export const MAX_XML_PART_BYTES = 24 * 1024 * 1024;

const factoryOptionsSchema = z.strictObject({ zip: zipLimitsSchema.optional() });

/** The part of mammoth's document tree this converter looks at (its types say `any`). */
interface DocumentElement {
  type: string;
  children?: DocumentElement[];
  href?: string;
  value?: string;
  styleId?: string | null;
  styleName?: string | null;
}

function textOf(element: DocumentElement): string {
  if (element.type === 'text') return element.value ?? '';
  return (element.children ?? []).map(textOf).join('');
}

/** Neutralises script links in place, and finds a title (the first Title or Heading 1 paragraph). */
function inspectDocument(element: DocumentElement, found: { title?: string }): DocumentElement {
  if (
    element.type === 'hyperlink' &&
    typeof element.href === 'string' &&
    isScriptableUrl(element.href, false)
  ) {
    element.href = '#';
  }
  if (found.title === undefined && element.type === 'paragraph') {
    const style = `${element.styleName ?? element.styleId ?? ''}`.toLowerCase();
    if (style === 'title' || style === 'heading 1' || style === 'heading1')
      found.title = textOf(element).trim();
  }
  for (const child of element.children ?? []) inspectDocument(child, found);
  return element;
}

async function docxToHtml(
  ctx: ConvertContext<unknown>,
  embedImages: boolean,
): Promise<{ html: string; title: string }> {
  const mammoth = await loadMammoth();
  const found: { title?: string } = {};
  const convertImage = mammoth.images.imgElement(async (image) => {
    // Throwing drops the image (mammoth records a message and goes on). An external image
    // throws too, from readAsBase64String: external file access is disabled.
    if (!embedImages) throw new Error('images are dropped');
    if (!/^image\/[\w.+-]+$/.test(image.contentType)) throw new Error('not an image type');
    return { src: `data:${image.contentType};base64,${await image.readAsBase64String()}` };
  });
  const result = await raceAbort(
    mammoth.convertToHtml(
      { path: ctx.inputPath },
      {
        externalFileAccess: false,
        convertImage,
        transformDocument: (document: DocumentElement) => inspectDocument(document, found),
      },
    ),
    ctx.signal,
  );
  return { html: result.value, title: found.title || 'Document' };
}

async function run(ctx: ConvertContext<MammothOptions>, zip: Partial<ZipLimits>): Promise<void> {
  const { images } = ctx.options;
  await assertSafeZip(ctx.inputPath, zip, ctx.signal);
  throwIfAborted(ctx.signal);
  ctx.onProgress(0.2);
  // Plain text cannot hold images: not reading them saves the base64 round trip.
  const { html, title } = await docxToHtml(ctx, ctx.to !== 'txt' && images !== 'drop');
  throwIfAborted(ctx.signal);
  ctx.onProgress(0.7);
  await writeOutput(ctx, 'mammoth', async () => {
    if (ctx.to === 'html') return htmlDocument(html, title);
    const Turndown = await loadTurndown();
    return ctx.to === 'md' ? htmlToMarkdown(Turndown, html) : htmlToText(Turndown, html);
  });
}

/** Creates the mammoth (docx) converter. Options are checked here, and a bad one throws INVALID_OPTIONS. */
export function createMammothConverter(options: MammothConverterOptions = {}): Converter<MammothOptions> {
  const given = parseOptions(factoryOptionsSchema, options, 'createMammothConverter');
  const zip: Partial<ZipLimits> = { maxXmlEntryBytes: MAX_XML_PART_BYTES, ...given.zip };
  const guard = edgeGuard('mammoth', MAMMOTH_EDGES);

  return {
    ...MAMMOTH,

    async available(): Promise<Availability> {
      // Every missing package at once, from the disk: one install line makes the engine work.
      const missing = missingPackages('mammoth');
      if (missing.length > 0) return notInstalled('mammoth', missing);
      try {
        await Promise.all([loadMammoth(), loadTurndown()]);
        return {
          ok: true,
          version: `mammoth ${packageVersion('mammoth')}, turndown ${packageVersion('turndown')}`,
        };
      } catch (error) {
        return unavailable(error);
      }
    },

    async convert(ctx): Promise<ConvertResult> {
      guard(ctx.from, ctx.to);
      return runInProcess(
        ctx,
        () => run(ctx, zip),
        (error) => mapDocumentError(error, 'docx conversion', true),
      );
    },
  };
}
