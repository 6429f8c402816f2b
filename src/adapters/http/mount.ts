/** Where an adapter mounts the service: its base path, and a request path relative to it. */

/** '/files/' -> '/files'; 'files' -> '/files'; '' or '/' -> ''. */
export function normalizeBasePath(basePath: string | undefined): string {
  const trimmed = (basePath ?? '').replace(/\/+$/, '');
  if (trimmed !== '' && !trimmed.startsWith('/')) return `/${trimmed}`;
  return trimmed;
}

/** The path below `basePath` ('' for the mount point itself), or null when the request is not under it. */
export function pathBelow(pathname: string, basePath: string): string | null {
  if (basePath === '') return pathname;
  const head = pathname.slice(0, basePath.length);
  // Mount points match case-insensitively, like Express's app.use(path).
  if (head.toLowerCase() !== basePath.toLowerCase()) return null;
  const rest = pathname.slice(basePath.length);
  return rest === '' || rest.startsWith('/') ? rest : null;
}
