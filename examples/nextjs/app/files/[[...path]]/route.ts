/**
 * fileconv's whole HTTP API under /files: this optional catch-all route answers /files and
 * everything below it, every method through the same fetch handler.
 */
import { fileconvHandler } from '../../../lib/fileconv';

// fileconv needs Node (files, SQLite, native converters), and no answer may be prerendered or cached.
export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

async function handle(request: Request): Promise<Response> {
  const handler = await fileconvHandler();
  return handler(request);
}

export { handle as DELETE, handle as GET, handle as HEAD, handle as OPTIONS, handle as POST, handle as PUT };
