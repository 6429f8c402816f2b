/**
 * The command-line PDF tools some operations run: qpdf (Apache-2.0; encryption, page counts) and
 * Ghostscript (AGPL-3.0; image recompression, PDF/A). Found and run through the shared
 * command-tools module; these names are what the PDF code has always used.
 */
import {
  COMMAND_TOOLS,
  type CommandToolInfo,
  DEFAULT_TOOL_TIMEOUT_MS,
  findTool,
  locateTool,
  runTool,
  stderrTail,
  type ToolOutcome,
  type ToolRunOptions,
  toolFailed,
} from '../../kit/command-tools.js';

export type PdfTool = 'qpdf' | 'gs';
export type PdfToolRunOptions = ToolRunOptions;
export type PdfToolOutcome = ToolOutcome;

export const PDF_TOOLS: Readonly<Record<PdfTool, CommandToolInfo>> = {
  qpdf: COMMAND_TOOLS.qpdf,
  gs: COMMAND_TOOLS.gs,
};

export { DEFAULT_TOOL_TIMEOUT_MS, stderrTail, toolFailed };

/** The tool's executable: its environment override, else PATH; ENGINE_UNAVAILABLE naming the install. */
export function locatePdfTool(tool: PdfTool): Promise<string> {
  return locateTool(tool, 'This PDF operation');
}

export const runPdfTool = runTool;

/** The tool's executable, or undefined when it is not installed (an operation then takes another way). */
export function findPdfTool(tool: PdfTool): Promise<string | undefined> {
  return findTool(tool);
}
