/**
 * Video and audio entries of the format registry (see registry.ts for the conventions).
 *
 * Containers matter more than codecs here: a format is what a file is wrapped in, because that is
 * what the bytes, the extension and the MIME type tell us. Which codecs a converter writes inside
 * is the converter's business.
 */
import type { FormatDefinition } from './types.js';

export const VIDEO_FORMATS: readonly FormatDefinition[] = [
  {
    name: 'mp4',
    family: 'video',
    label: 'MPEG-4 video',
    aliases: ['mp4v', 'mpg4', 'mpeg4'],
    extensions: ['mp4', 'mp4v', 'mpg4'],
    mimeTypes: ['video/mp4'],
    detectable: true,
    animated: true,
  },
  {
    name: 'webm',
    family: 'video',
    label: 'WebM video',
    aliases: [],
    extensions: ['webm'],
    // audio/webm is an audio-only WebM; it is the same container and converts the same way.
    mimeTypes: ['video/webm', 'audio/webm'],
    detectable: true,
    animated: true,
  },
  {
    name: 'mkv',
    family: 'video',
    label: 'Matroska video',
    aliases: ['matroska'],
    extensions: ['mkv'],
    // video/matroska is the RFC 9559 registration; x- is what most software still sends.
    mimeTypes: ['video/x-matroska', 'video/matroska'],
    detectable: true,
    animated: true,
  },
  {
    name: 'mov',
    family: 'video',
    label: 'QuickTime movie',
    aliases: ['qt', 'quicktime'],
    extensions: ['mov', 'qt'],
    mimeTypes: ['video/quicktime'],
    detectable: true,
    animated: true,
  },
  {
    name: 'avi',
    family: 'video',
    label: 'AVI video',
    aliases: [],
    extensions: ['avi'],
    mimeTypes: ['video/x-msvideo', 'video/avi', 'video/msvideo', 'video/vnd.avi'],
    detectable: true,
    animated: true,
  },
  {
    name: 'flv',
    family: 'video',
    label: 'Flash video',
    aliases: [],
    extensions: ['flv'],
    mimeTypes: ['video/x-flv'],
    detectable: true,
    animated: true,
  },
  {
    name: 'wmv',
    family: 'video',
    label: 'Windows Media video',
    // .asf is the bare Advanced Systems Format container WMV lives in; it is mostly video.
    aliases: ['asf'],
    extensions: ['wmv', 'asf'],
    mimeTypes: ['video/x-ms-wmv', 'video/x-ms-asf'],
    detectable: true,
    animated: true,
  },
  {
    name: 'mpeg',
    family: 'video',
    label: 'MPEG-1/2 video',
    // m1v/m2v are elementary streams without a program-stream wrapper; ffmpeg reads both alike.
    aliases: ['mpg', 'mpe', 'm1v', 'm2v'],
    extensions: ['mpeg', 'mpg', 'mpe', 'm1v', 'm2v'],
    mimeTypes: ['video/mpeg'],
    detectable: true,
    animated: true,
  },
  {
    name: '3gp',
    family: 'video',
    label: '3GPP video',
    // 3GPP2 (.3g2) is the CDMA sibling in the same ISO BMFF container; kept under one name.
    aliases: ['3gpp', '3g2', '3gpp2'],
    extensions: ['3gp', '3gpp', '3g2', '3gpp2'],
    mimeTypes: ['video/3gpp', 'audio/3gpp', 'video/3gpp2', 'audio/3gpp2'],
    detectable: true,
    animated: true,
  },
  {
    name: 'ogv',
    family: 'video',
    label: 'Ogg video',
    aliases: [],
    extensions: ['ogv'],
    mimeTypes: ['video/ogg'],
    detectable: true,
    animated: true,
  },
  {
    name: 'm4v',
    family: 'video',
    label: 'Apple MPEG-4 video',
    aliases: [],
    extensions: ['m4v'],
    mimeTypes: ['video/x-m4v'],
    detectable: true,
    animated: true,
  },
  {
    // MPEG transport stream, not TypeScript: this registry only knows media, so '.ts' is video.
    name: 'ts',
    family: 'video',
    label: 'MPEG transport stream',
    // m2ts/mts are the Blu-ray/AVCHD flavour (192-byte packets); same demuxer.
    aliases: ['mpegts', 'm2ts', 'mts', 'm2t'],
    extensions: ['ts', 'm2ts', 'mts', 'm2t'],
    // Windows labels .m2ts/.mts uploads video/vnd.dlna.mpeg-tts.
    mimeTypes: ['video/mp2t', 'video/vnd.dlna.mpeg-tts'],
    detectable: true,
    animated: true,
  },
];

export const AUDIO_FORMATS: readonly FormatDefinition[] = [
  {
    name: 'mp3',
    family: 'audio',
    label: 'MP3 audio',
    aliases: [],
    extensions: ['mp3'],
    mimeTypes: ['audio/mpeg', 'audio/mp3', 'audio/x-mp3', 'audio/mpeg3', 'audio/x-mpeg-3'],
    detectable: true,
  },
  {
    name: 'wav',
    family: 'audio',
    label: 'WAV audio',
    aliases: ['wave'],
    extensions: ['wav', 'wave'],
    mimeTypes: ['audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave', 'audio/x-pn-wav'],
    detectable: true,
  },
  {
    name: 'ogg',
    family: 'audio',
    label: 'Ogg Vorbis audio',
    aliases: ['oga'],
    extensions: ['ogg', 'oga'],
    // application/ogg is the generic container type; audio is by far its most common content.
    mimeTypes: ['audio/ogg', 'audio/vorbis', 'application/ogg'],
    detectable: true,
  },
  {
    name: 'flac',
    family: 'audio',
    label: 'FLAC audio',
    aliases: [],
    extensions: ['flac'],
    mimeTypes: ['audio/flac', 'audio/x-flac'],
    detectable: true,
  },
  {
    // Raw AAC in ADTS framing; AAC inside MP4 is m4a.
    name: 'aac',
    family: 'audio',
    label: 'AAC audio (ADTS)',
    aliases: ['adts'],
    extensions: ['aac', 'adts'],
    mimeTypes: ['audio/aac', 'audio/x-aac', 'audio/aacp'],
    detectable: true,
  },
  {
    name: 'm4a',
    family: 'audio',
    label: 'MPEG-4 audio',
    // .m4b is the audiobook flavour (chapters) of the same file.
    aliases: ['m4b'],
    extensions: ['m4a', 'm4b'],
    mimeTypes: ['audio/mp4', 'audio/x-m4a', 'audio/m4a'],
    detectable: true,
  },
  {
    name: 'opus',
    family: 'audio',
    label: 'Opus audio',
    aliases: [],
    extensions: ['opus'],
    // Opus files are Ogg; 'audio/ogg; codecs=opus' resolves to ogg, since MIME parameters are ignored.
    mimeTypes: ['audio/opus'],
    detectable: true,
  },
  {
    name: 'wma',
    family: 'audio',
    label: 'Windows Media audio',
    aliases: [],
    extensions: ['wma'],
    mimeTypes: ['audio/x-ms-wma'],
    detectable: true,
  },
  {
    name: 'aiff',
    family: 'audio',
    label: 'AIFF audio',
    // AIFC is the compressed variant of the same IFF container.
    aliases: ['aif', 'aifc'],
    extensions: ['aiff', 'aif', 'aifc'],
    mimeTypes: ['audio/aiff', 'audio/x-aiff'],
    detectable: true,
  },
  {
    name: 'ac3',
    family: 'audio',
    label: 'Dolby Digital (AC-3) audio',
    aliases: [],
    extensions: ['ac3'],
    mimeTypes: ['audio/ac3', 'audio/vnd.dolby.dd-raw'],
    detectable: true,
  },
];
