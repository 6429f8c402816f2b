/**
 * What a PDF is, read with tools that did not write it (qpdf, pdfinfo, pdffonts): its objects,
 * and the veraPDF-style PDF/A checks a test can run here: the XMP claims the level, an output
 * intent is there, every font is embedded, nothing is encrypted, and qpdf --check passes.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { expect } from 'vitest';

function run(command: string, args: string[]): string {
  return execFileSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

export type PdfObjects = Record<
  string,
  { value?: Record<string, unknown>; stream?: { dict: Record<string, unknown> } }
>;

/** The objects of a PDF as qpdf --json (version 2) lists them. */
export function qpdfObjects(path: string): PdfObjects {
  const json = JSON.parse(run('qpdf', ['--json=2', '--json-key=qpdf', path])) as {
    qpdf: [unknown, PdfObjects];
  };
  return json.qpdf[1];
}

/** The document catalog's dictionary. */
export function catalogOf(objects: PdfObjects): Record<string, unknown> | undefined {
  return Object.values(objects).find((object) => object.value?.['/Type'] === '/Catalog')?.value;
}

/**
 * Asserts that `path` is PDF/A at `level` ('1b', '2b', '3b') as far as tools here can tell: the
 * XMP packet's pdfaid claim, a GTS_PDFA1 output intent with a profile, every font embedded, not
 * encrypted, and a structurally sound file (qpdf --check). `conformance` is what the XMP must
 * claim: 'B' for a b level, or 'A' where a writer meets the stricter a level instead.
 */
export function expectPdfA(path: string, level: string, conformance: 'A' | 'B' = 'B'): void {
  expect(spawnSync('qpdf', ['--check', path]).status).toBe(0);
  expect(run('pdfinfo', [path])).toMatch(/^Encrypted:\s+no$/m);
  const fonts = run('pdffonts', [path]).split('\n').slice(2).filter(Boolean);
  expect(fonts.length).toBeGreaterThan(0);
  for (const row of fonts) expect(row).toMatch(/\s+yes\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+$/);
  const objects = qpdfObjects(path);
  const catalog = catalogOf(objects);
  expect(catalog?.['/OutputIntents']).toBeDefined();
  const intent = Object.values(objects).find((object) => object.value?.['/Type'] === '/OutputIntent')?.value;
  expect(intent).toMatchObject({ '/S': '/GTS_PDFA1' });
  expect(intent?.['/DestOutputProfile']).toMatch(/^\d+ 0 R$/);
  // The XMP packet: qpdf prints the metadata stream's data decoded.
  const metadataRef = String(catalog?.['/Metadata']).split(' ')[0];
  const xmp = run('qpdf', [`--show-object=${metadataRef}`, '--filtered-stream-data', path]);
  expect(xmp).toMatch(new RegExp(`pdfaid:part(='|>|=")${level[0]}`));
  expect(xmp).toMatch(new RegExp(`pdfaid:conformance(='|>|=")${conformance}`));
}
