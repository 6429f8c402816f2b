/**
 * An .ogg file holding Theora video (issue 17's survey: taken for audio, so ogg -> mp4 was
 * UNSUPPORTED_CONVERSION): the bytes say ogv and win over the name; a declared 'ogg' is still
 * respected. The file is made by ffmpeg here, and the result probed with ffprobe.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createFfmpegConverter } from '../../src/converters/ffmpeg/index.js';
import { createEngine } from '../../src/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { tempDir } from '../helpers/temp.js';
import { FFMPEG_AVAILABLE, FFMPEG_INSTALL, probeFile } from './ffmpeg-helpers.js';

describeWithEngine('ffmpeg', FFMPEG_AVAILABLE, FFMPEG_INSTALL, 'an .ogg holding Theora video', () => {
  const engine = createEngine({ converters: [createFfmpegConverter()] });
  afterAll(() => engine.close());

  it('is read as video by its bytes, and converts to mp4 with its picture', async () => {
    const dir = await tempDir();
    const clip = join(dir, 'screencast.ogg');
    execFileSync('ffmpeg', [
      ...['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=1:size=64x48:rate=5'],
      ...['-c:v', 'libtheora', '-f', 'ogg', clip],
    ]);
    const output = join(dir, 'screencast.mp4');
    const report = await engine.convertFile(clip, output);
    expect(report.from).toBe('ogv');
    const video = probeFile(output).streams.find((stream) => stream.codec_type === 'video');
    expect(video).toMatchObject({ width: 64, height: 48 });
    // Declared as audio, it is taken at its word: there is no video of an audio file.
    await expect(engine.convertFile(clip, join(dir, 'declared.mp4'), { from: 'ogg' })).rejects.toMatchObject({
      code: 'UNSUPPORTED_CONVERSION',
    });
  });
});
