/** How large an image any converter may be asked to make, shared by the image and PDF engines. */

/** Largest width or height a caller may ask for; WebP itself stops at 16383. */
export const MAX_DIMENSION = 16_384;
