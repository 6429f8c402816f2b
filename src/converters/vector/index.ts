/**
 * The print and vector converters, one per engine so the graph routes around whichever is not
 * installed: Ghostscript (PostScript and EPS <-> PDF, PostScript and EPS -> PNG/JPEG), librsvg
 * (SVG -> PDF), Poppler's pdftocairo (PDF -> SVG) and zlib (svgz <-> SVG). The command-line
 * engines are Debian packages (ghostscript, librsvg2-bin, poppler-utils); `fileconv doctor` names
 * the install line of any that is missing.
 */
export {
  createGhostscriptConverter,
  type GhostscriptConverterOptions,
} from './ghostscript-converter.js';
export { createPdftocairoConverter, type PdftocairoConverterOptions } from './pdftocairo-converter.js';
export {
  GHOSTSCRIPT_REGISTRATION,
  PDFTOCAIRO_REGISTRATION,
  RSVG_REGISTRATION,
  SVGZ_REGISTRATION,
} from './registration.js';
export { createRsvgConverter, type RsvgConverterOptions } from './rsvg-converter.js';
export { createSvgzConverter } from './svgz-converter.js';
export {
  GHOSTSCRIPT_EDGES,
  PDFTOCAIRO_EDGES,
  RSVG_EDGES,
  SVGZ_EDGES,
} from './vector-edges.js';
export { VECTOR_DEFAULTS, vectorOptionsSchema } from './vector-options.js';
