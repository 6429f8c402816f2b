/**
 * `fileconv/operations/subtitles`: adding subtitles to a video (soft, as a stream, or burnt into
 * the picture by ffmpeg), as a document operation whose job has two inputs, the video and then
 * the subtitle file:
 *
 *   createConverter({ converters, operations: [...pdfOperations(), ...subtitleOperations()] })
 */
export {
  SUBTITLED_FORMATS,
  subtitleOperationOptions,
  subtitleOperations,
} from './subtitle-operations.js';
