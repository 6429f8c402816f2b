/**
 * The containers the ffmpeg converter reads and writes: for each registered format, the ffmpeg
 * demuxer that must read it (forced with `-f`, so content never picks a playlist or concat
 * demuxer), the muxer that writes it, the codecs an option may choose (the default first), and
 * the codecs that may be copied into it untouched (stream copy, see ffmpeg-args.ts).
 */
import type { FormatName } from '../../core/formats/types.js';
import type { AudioCodec, VideoCodec } from './codecs.js';

export const VIDEO_FORMATS = [
  'mp4',
  'webm',
  'mkv',
  'mov',
  'avi',
  'flv',
  'wmv',
  'mpeg',
  '3gp',
  'ogv',
  'm4v',
  'ts',
] as const;
export const AUDIO_FORMATS = [
  'mp3',
  'wav',
  'ogg',
  'flac',
  'aac',
  'm4a',
  'opus',
  'wma',
  'aiff',
  'ac3',
] as const;
/** Audio targets that keep every sample: nothing is lost converting to them. */
export const LOSSLESS_AUDIO_FORMATS: ReadonlySet<FormatName> = new Set(['wav', 'flac', 'aiff']);

export type MediaKind = 'video' | 'audio' | 'animation';

export interface MediaContainer {
  kind: MediaKind;
  /** The ffmpeg demuxer that reads it; also a name the probe must report for the declared format. */
  demuxer: string;
  /** The ffmpeg muxer that writes it. */
  muxer: string;
  /** Video codecs the `videoCodec` option may name, the default first (empty for audio). */
  videoCodecs: readonly VideoCodec[];
  /** Audio codecs the `audioCodec` option may name, the default first (empty for gif). */
  audioCodecs: readonly AudioCodec[];
  /**
   * ffprobe codec names remuxed into it as they are by default. For mp4, the browsers' target,
   * only codecs browsers play: an mp4 should play in a browser unless the options ask otherwise.
   */
  copyVideo: readonly string[];
  copyAudio: readonly string[];
  /**
   * Codecs it can hold that browsers do not play (MPEG-4 Part 2, AC-3): copied only when the
   * `keepStreams` option asks to keep the source's streams as they are; encoded otherwise.
   */
  holdVideo?: readonly string[];
  holdAudio?: readonly string[];
  /** Muxer options. */
  muxerArgs: readonly string[];
  /** Encoder options this container needs for a codec (3GP players want H.264 baseline). */
  codecArgs?: Partial<Record<VideoCodec, readonly string[]>>;
}

// The moov box first: players and browsers can start before the whole file has arrived.
const FASTSTART = ['-movflags', '+faststart'];
const NONE: readonly string[] = [];

function video(spec: Omit<MediaContainer, 'kind'>): MediaContainer {
  return { kind: 'video', ...spec };
}
function audio(demuxer: string, muxer: string, codecs: readonly AudioCodec[], copy: readonly string[]) {
  const spec: MediaContainer = {
    kind: 'audio',
    demuxer,
    muxer,
    videoCodecs: [],
    audioCodecs: codecs,
    copyVideo: [],
    copyAudio: copy,
    muxerArgs: muxer === 'ipod' ? FASTSTART : NONE,
  };
  return spec;
}

const ISO_VIDEO = ['h264', 'hevc', 'mpeg4'] as const;
const PCM_LE = ['pcm_s16le', 'pcm_u8', 'pcm_s24le', 'pcm_s32le', 'pcm_f32le'];

export const CONTAINERS: Readonly<Record<string, MediaContainer>> = {
  mp4: video({
    demuxer: 'mov',
    muxer: 'mp4',
    videoCodecs: [...ISO_VIDEO, 'vp9'],
    audioCodecs: ['aac', 'mp3', 'ac3', 'opus'],
    // What Chrome, Firefox and Safari play in mp4 (HEVC: Safari and Chrome with hardware).
    copyVideo: ['h264', 'hevc', 'vp9', 'av1'],
    copyAudio: ['aac', 'mp3', 'opus'],
    holdVideo: ['mpeg4'],
    holdAudio: ['ac3', 'eac3', 'alac'],
    muxerArgs: FASTSTART,
  }),
  m4v: video({
    demuxer: 'mov',
    muxer: 'mp4',
    videoCodecs: [...ISO_VIDEO],
    audioCodecs: ['aac', 'ac3', 'mp3'],
    copyVideo: [...ISO_VIDEO],
    copyAudio: ['aac', 'ac3', 'mp3', 'alac'],
    // The brand is what tells an .m4v apart from an .mp4 (iTunes, and this project's detection).
    muxerArgs: ['-brand', 'M4V ', ...FASTSTART],
  }),
  mov: video({
    demuxer: 'mov',
    muxer: 'mov',
    videoCodecs: [...ISO_VIDEO],
    audioCodecs: ['aac', 'mp3', 'ac3', 'alac', 'pcm_s16le'],
    copyVideo: [...ISO_VIDEO, 'prores', 'mjpeg'],
    copyAudio: ['aac', 'mp3', 'ac3', 'alac', 'pcm_s16le', 'pcm_s16be', 'pcm_s24le'],
    muxerArgs: FASTSTART,
  }),
  '3gp': video({
    demuxer: 'mov',
    muxer: '3gp',
    // H.263 only takes five fixed frame sizes; H.264 baseline plays on the same phones.
    videoCodecs: ['h264', 'mpeg4'],
    audioCodecs: ['aac'],
    copyVideo: ['h264', 'h263', 'mpeg4'],
    copyAudio: ['aac', 'amr_nb', 'amr_wb'],
    muxerArgs: FASTSTART,
    codecArgs: { h264: ['-profile:v', 'baseline', '-level', '3.0'] },
  }),
  webm: video({
    demuxer: 'matroska',
    muxer: 'webm',
    videoCodecs: ['vp9', 'vp8'],
    audioCodecs: ['opus', 'vorbis'],
    copyVideo: ['vp8', 'vp9', 'av1'],
    copyAudio: ['opus', 'vorbis'],
    muxerArgs: NONE,
  }),
  mkv: video({
    demuxer: 'matroska',
    muxer: 'matroska',
    videoCodecs: ['h264', 'hevc', 'vp9', 'vp8', 'mpeg4', 'theora'],
    audioCodecs: ['aac', 'opus', 'vorbis', 'flac', 'mp3', 'ac3'],
    copyVideo: ['h264', 'hevc', 'vp8', 'vp9', 'av1', 'mpeg4', 'mpeg1video', 'mpeg2video', 'theora', 'mjpeg'],
    copyAudio: ['aac', 'mp3', 'mp2', 'opus', 'vorbis', 'flac', 'alac', 'ac3', 'eac3', 'dts', 'pcm_s16le'],
    muxerArgs: NONE,
  }),
  avi: video({
    demuxer: 'avi',
    muxer: 'avi',
    videoCodecs: ['mpeg4', 'h264'],
    audioCodecs: ['mp3', 'ac3', 'pcm_s16le'],
    // H.264 from MP4 or Matroska would need converting to Annex B first: it is re-encoded instead.
    copyVideo: ['mpeg4', 'msmpeg4v3', 'mjpeg'],
    copyAudio: ['mp3', 'mp2', 'ac3', 'pcm_s16le', 'pcm_u8'],
    muxerArgs: NONE,
  }),
  flv: video({
    demuxer: 'flv',
    muxer: 'flv',
    videoCodecs: ['h264'],
    // FLV's MP3 only takes 11/22/44 kHz: AAC takes any rate, so it is the one codec offered.
    audioCodecs: ['aac'],
    copyVideo: ['h264', 'flv1'],
    copyAudio: ['aac'],
    muxerArgs: NONE,
  }),
  wmv: video({
    demuxer: 'asf',
    muxer: 'asf',
    videoCodecs: ['wmv2'],
    audioCodecs: ['wmav2'],
    copyVideo: ['wmv1', 'wmv2'],
    copyAudio: ['wmav1', 'wmav2'],
    muxerArgs: NONE,
  }),
  mpeg: video({
    demuxer: 'mpeg',
    muxer: 'mpeg',
    videoCodecs: ['mpeg2video'],
    audioCodecs: ['mp2', 'ac3'],
    copyVideo: ['mpeg1video', 'mpeg2video'],
    copyAudio: ['mp2', 'mp3', 'ac3'],
    muxerArgs: NONE,
  }),
  ogv: video({
    demuxer: 'ogg',
    muxer: 'ogg',
    videoCodecs: ['theora'],
    audioCodecs: ['vorbis', 'opus'],
    copyVideo: ['theora'],
    copyAudio: ['vorbis', 'opus', 'flac'],
    muxerArgs: NONE,
  }),
  ts: video({
    demuxer: 'mpegts',
    muxer: 'mpegts',
    videoCodecs: ['h264', 'hevc', 'mpeg2video'],
    audioCodecs: ['aac', 'mp3', 'ac3', 'mp2'],
    copyVideo: ['h264', 'hevc', 'mpeg1video', 'mpeg2video'],
    copyAudio: ['aac', 'mp3', 'mp2', 'ac3', 'eac3', 'opus'],
    muxerArgs: NONE,
  }),
  gif: {
    kind: 'animation',
    demuxer: 'gif',
    muxer: 'gif',
    videoCodecs: [],
    audioCodecs: [],
    copyVideo: [],
    copyAudio: [],
    muxerArgs: NONE,
  },
  mp3: audio('mp3', 'mp3', ['mp3'], ['mp3']),
  wav: audio('wav', 'wav', ['pcm_s16le'], PCM_LE),
  ogg: audio('ogg', 'ogg', ['vorbis', 'opus', 'flac'], ['vorbis', 'opus', 'flac']),
  flac: audio('flac', 'flac', ['flac'], ['flac']),
  aac: audio('aac', 'adts', ['aac'], ['aac']),
  m4a: audio('mov', 'ipod', ['aac', 'alac'], ['aac', 'alac']),
  opus: audio('ogg', 'opus', ['opus'], ['opus']),
  wma: audio('asf', 'asf', ['wmav2'], ['wmav1', 'wmav2']),
  aiff: audio('aiff', 'aiff', ['pcm_s16be'], ['pcm_s16be', 'pcm_s24be', 'pcm_s32be']),
  ac3: audio('ac3', 'ac3', ['ac3'], ['ac3']),
};

/** The container spec of a format this converter handles; undefined for any other format. */
export function containerOf(format: FormatName): MediaContainer | undefined {
  return Object.hasOwn(CONTAINERS, format) ? CONTAINERS[format] : undefined;
}

/** Every demuxer the converter ever lets ffmpeg use: the probe's format whitelist. */
export const SAFE_DEMUXERS: readonly string[] = [
  ...new Set(Object.values(CONTAINERS).map((container) => container.demuxer)),
];
