import { copyFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConversionEdge, Converter } from '../../src/index.js';

/** A converter that copies bytes along the given edges: for testing engine mechanics, not conversions. */
export function copyConverter(name: string, edges: ConversionEdge[], delayMs = 0): Converter {
  return {
    name,
    edges,
    available: async () => ({ ok: true }),
    async convert(ctx) {
      ctx.onProgress(0.5);
      if (delayMs > 0) await sleep(delayMs, undefined, { signal: ctx.signal });
      await copyFile(ctx.inputPath, ctx.outputPath);
      return { cpuMs: 1 };
    },
  };
}
