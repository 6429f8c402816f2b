/**
 * The PDF/A levels fileconv makes: part 1, 2 or 3 at conformance b (the visual appearance kept).
 * One list for Ghostscript's PDF/A operation and LibreOffice's PDF/A export alike.
 */
export const PDFA_LEVELS = ['1b', '2b', '3b'] as const;
export type PdfaLevel = (typeof PDFA_LEVELS)[number];
