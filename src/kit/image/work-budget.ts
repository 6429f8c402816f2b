/**
 * An image conversion's work against its pixel budget (a plan's maxWorkPixels): every frame it
 * decodes, checked from the header before any pixel is. The engine's maxPixels bounds one image;
 * this bounds what one conversion may cost, so an animation of many large frames that each pass
 * maxPixels is still refused on a plan with a smaller budget.
 */
import { workBudgetError } from '../../core/work-limits.js';

export function assertImageWork(
  width: number,
  height: number,
  frames: number,
  budget: number | undefined,
): void {
  if (budget === undefined) return;
  const pixels = width * height * frames;
  if (pixels <= budget) return;
  const what =
    frames > 1
      ? `The image is ${frames} frames of ${width}x${height} pixels`
      : `The image is ${width}x${height} pixels`;
  throw workBudgetError('maxWorkPixels', what, pixels, budget);
}
