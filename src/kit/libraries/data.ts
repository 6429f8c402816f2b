/**
 * Lazy loaders for the data converter's libraries: yaml (ISC), fast-xml-parser (MIT) and smol-toml
 * (BSD-3-Clause), all pure JavaScript. Imported on first use only; a missing package is ENGINE_UNAVAILABLE with the
 * line that installs the group (a failed import is forgotten, so an install fixes it).
 */
import { packageUnavailable } from '../engine-packages.js';

export type YamlModule = typeof import('yaml');
export type XmlParserModule = typeof import('fast-xml-parser');
export type TomlModule = typeof import('smol-toml');

function lazy<T>(load: () => Promise<T>, pkg: string, purpose: string): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw packageUnavailable('data', pkg, purpose, error);
    });
    return pending;
  };
}

export const loadYaml: () => Promise<YamlModule> = lazy(() => import('yaml'), 'yaml', 'YAML');
export const loadXmlParser: () => Promise<XmlParserModule> = lazy(
  () => import('fast-xml-parser'),
  'fast-xml-parser',
  'XML',
);
export const loadToml: () => Promise<TomlModule> = lazy(() => import('smol-toml'), 'smol-toml', 'TOML');
