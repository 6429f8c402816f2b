/**
 * Chooses how the LibreOffice converter runs, once per converter: the warm pool (soffice.bin, a
 * Python with the uno module, the bridge script), cold runs (soffice.bin alone), or nothing.
 * 'auto' falls back from the pool to cold runs and says why, so available() can report it.
 */
import { bridgeScript, locateSoffice, locateUnoPython, sofficeVersion } from './libreoffice-locate.js';

export type LibreOfficeMode = 'auto' | 'pool' | 'cold';

export type LibreOfficeEngine =
  | { kind: 'unavailable'; reason: string }
  | {
      kind: 'pool';
      soffice: string;
      python: string;
      bridge: string;
      description: string;
      fallback?: undefined;
    }
  | { kind: 'cold'; soffice: string; description: string; fallback?: string };

export async function resolveEngine(
  mode: LibreOfficeMode,
  paths: { sofficePath?: string | undefined; pythonPath?: string | undefined },
): Promise<LibreOfficeEngine> {
  const soffice = await locateSoffice(paths.sofficePath);
  if (typeof soffice !== 'string') return { kind: 'unavailable', reason: soffice.missing };
  // Both start a process (~0.1 s each), so side by side: a one-file `fileconv convert` waits for both.
  const [version, python] = await Promise.all([
    sofficeVersion(soffice),
    mode === 'cold' ? undefined : locateUnoPython(paths.pythonPath, soffice),
  ]);
  if (version === undefined) return { kind: 'unavailable', reason: `${soffice} --version failed` };
  const name = `LibreOffice ${version}`;
  if (python === undefined)
    return { kind: 'cold', soffice, description: `${name} (cold: one soffice per document)` };

  const bridge = bridgeScript();
  const missing =
    typeof python !== 'string'
      ? python.missing
      : bridge === undefined
        ? 'the bridge script uno-bridge.py is missing from the installation'
        : undefined;
  if (missing === undefined && typeof python === 'string' && bridge !== undefined) {
    return { kind: 'pool', soffice, python, bridge, description: `${name} (warm pool, ${python})` };
  }
  if (mode === 'pool') return { kind: 'unavailable', reason: `The LibreOffice pool cannot run: ${missing}` };
  const fallback = `${missing}: running one cold soffice per document (~10x slower) instead of the warm pool`;
  return { kind: 'cold', soffice, description: `${name} (cold fallback: ${missing})`, fallback };
}
