/**
 * The 'subtitles' operation as an API client uses it: a video and a SubRip file uploaded, one
 * job over both, the result checked with ffprobe; a subtitle file given first is refused.
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { definePlans } from '../../src/core/policy/index.js';
import { findTool } from '../../src/kit/command-tools.js';
import { subtitleOperations } from '../../src/operations/subtitles/subtitle-operations.js';
import { describeWithEngine } from '../helpers/engines.js';
import { tempDir } from '../helpers/temp.js';
import { call, fixture, pollJob, startServer, uploadA } from './harness.js';

const ffmpegFound = (await findTool('ffmpeg')) !== undefined;

describeWithEngine('ffmpeg', ffmpegFound, 'apt-get install ffmpeg', 'subtitles over HTTP', () => {
  const start = () =>
    startServer({
      clients: true,
      engine: { converters: [], operations: subtitleOperations() },
      router: { plans: definePlans({ free: { conversionsPerDay: 1000, batch: true, maxBatchJobs: 10 } }) },
    });

  it('Flow A: a video and a SubRip file become an MKV with a subtitle stream', async () => {
    const server = await start();
    const video = await uploadA(server, await fixture('fixture.mp4'), 'clip.mp4', 'video/mp4', 'alice');
    const srt = await uploadA(
      server,
      await fixture('fixture.srt'),
      'clip.srt',
      'application/x-subrip',
      'alice',
    );
    const created = await call(server, 'POST', '/api/jobs/create', {
      client: 'alice',
      json: { operation: 'subtitles', fileKeys: [video.fileKey, srt.fileKey], options: { language: 'eng' } },
    });
    expect(created.status, created.text).toBe(200);
    const job = await pollJob(server, created.body.jobId, 'alice', 60_000);
    expect(job).toMatchObject({ status: 'completed', operation: 'subtitles', targetFormat: 'mkv' });
    const dir = await tempDir();
    const output = join(dir, 'out.mkv');
    await writeFile(output, Buffer.from(await (await fetch(job.downloadUrl)).arrayBuffer()));
    const streams = execFileSync(
      'ffprobe',
      [
        '-v',
        'error',
        '-show_entries',
        'stream=codec_type,codec_name:stream_tags=language',
        '-of',
        'csv=p=0',
        output,
      ],
      { encoding: 'utf8' },
    );
    expect(streams).toMatch(/^subrip,subtitle,eng$/m);
    expect(streams).toMatch(/^h264,video/m);
  });

  it('refuses a subtitle file in the video place with a 4xx naming the place', async () => {
    const server = await start();
    const srt = await uploadA(server, await fixture('fixture.srt'), 'a.srt', 'application/x-subrip', 'alice');
    const again = await uploadA(
      server,
      await fixture('fixture.srt'),
      'b.srt',
      'application/x-subrip',
      'alice',
    );
    const created = await call(server, 'POST', '/api/jobs/create', {
      client: 'alice',
      json: { operation: 'subtitles', fileKeys: [srt.fileKey, again.fileKey] },
    });
    expect(created.status).toBe(415);
    expect(created.text).toMatch(/File 1 \(a\.srt\) is srt/);
  });
});
