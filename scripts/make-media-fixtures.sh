#!/bin/sh
# Regenerates the small audio and video fixtures in fixtures/ (run from the repository root:
# `sh scripts/make-media-fixtures.sh`). Needs Debian's ffmpeg (`apt-get install -y ffmpeg`).
# The committed files are what tests use; this script documents how they were made.
#
# Video: 2 s of ffmpeg's testsrc2 pattern at 64x48, 10 fps, with a 440 Hz mono sine in every
# container (the ffmpeg converter's tests extract soundtracks from each, and trim to 1 s inside the
# clip). Audio: 2 s of a 440 Hz sine, mono, 8 kHz where the codec allows it (MP2 needs >= 16 kHz,
# AC-3 only does 32/44.1/48 kHz, Opus is resampled to 48 kHz internally). Everything stays under
# ~40 KB. Container brands are forced where the format is identified by them (m4v, m4a).
set -eu

out=fixtures
# -bitexact and -map_metadata -1 keep encoder version strings out, so reruns give the same bytes.
ff="ffmpeg -hide_banner -loglevel error -y -fflags +bitexact -flags:v +bitexact -flags:a +bitexact"
video="-f lavfi -i testsrc2=size=64x48:rate=10:duration=2"
tone8k="-f lavfi -i sine=frequency=440:sample_rate=8000:duration=2"
tone16k="-f lavfi -i sine=frequency=440:sample_rate=16000:duration=2"
tone48k="-f lavfi -i sine=frequency=440:sample_rate=48000:duration=2"
meta="-map_metadata -1"

# ---- video -------------------------------------------------------------------------------
$ff $video $tone8k $meta -c:v libx264 -preset veryfast -crf 35 -pix_fmt yuv420p -c:a aac -b:a 16k \
  -movflags +faststart -f mp4 "$out/fixture.mp4"
$ff $video $tone8k $meta -c:v libvpx -b:v 50k -c:a libvorbis -q:a 0 -f webm "$out/fixture.webm"
$ff $video $tone8k $meta -c:v libx264 -preset veryfast -crf 35 -pix_fmt yuv420p -c:a aac -b:a 16k \
  -f matroska "$out/fixture.mkv"
$ff $video $tone8k $meta -c:v libx264 -preset veryfast -crf 35 -pix_fmt yuv420p -c:a aac -b:a 16k \
  -f mov "$out/fixture.mov"
$ff $video $tone8k $meta -c:v mpeg4 -q:v 10 -c:a pcm_u8 -f avi "$out/fixture.avi"
$ff $video $tone8k $meta -c:v flv -q:v 10 -c:a aac -b:a 12k -f flv "$out/fixture.flv"
$ff $video $tone8k $meta -c:v wmv2 -q:v 10 -c:a wmav2 -b:a 24k -f asf "$out/fixture.wmv"
# MPEG-1 program stream; mpeg1video needs a standard frame rate, so 25 fps here.
$ff -f lavfi -i testsrc2=size=64x48:rate=25:duration=2 $tone16k $meta -c:v mpeg1video -q:v 10 \
  -c:a mp2 -b:a 32k -f mpeg "$out/fixture.mpeg"
$ff $video $tone8k $meta -c:v h263 -s 128x96 -q:v 10 -c:a aac -b:a 12k -ar 8000 \
  -f 3gp "$out/fixture.3gp"
$ff $video $tone8k $meta -c:v libtheora -q:v 3 -c:a libvorbis -q:a 0 -f ogg "$out/fixture.ogv"
$ff $video $tone8k $meta -c:v libx264 -preset veryfast -crf 35 -pix_fmt yuv420p -c:a aac -b:a 16k \
  -brand 'M4V ' -f mp4 "$out/fixture.m4v"
$ff $video $tone16k $meta -c:v mpeg2video -q:v 10 -c:a mp2 -b:a 32k -f mpegts "$out/fixture.ts"

# ---- audio -------------------------------------------------------------------------------
$ff $tone8k $meta -c:a libmp3lame -b:a 8k -id3v2_version 0 -write_xing 0 -f mp3 "$out/fixture.mp3"
$ff $tone8k $meta -c:a pcm_u8 -f wav "$out/fixture.wav"
$ff $tone8k $meta -c:a libvorbis -q:a 0 -f ogg "$out/fixture.ogg"
$ff $tone8k $meta -c:a flac -f flac "$out/fixture.flac"
$ff $tone8k $meta -c:a aac -b:a 12k -f adts "$out/fixture.aac"
# The ipod muxer writes an MP4 with major brand 'M4A ', as iTunes does.
$ff $tone8k $meta -c:a aac -b:a 12k -f ipod "$out/fixture.m4a"
$ff $tone8k $meta -c:a libopus -b:a 8k -f opus "$out/fixture.opus"
$ff $tone8k $meta -c:a wmav2 -b:a 24k -f asf "$out/fixture.wma"
$ff $tone8k $meta -c:a pcm_s16be -f aiff "$out/fixture.aiff"
$ff $tone48k $meta -c:a ac3 -b:a 32k -f ac3 "$out/fixture.ac3"

ls -l "$out"/fixture.mp4 "$out"/fixture.webm "$out"/fixture.mkv "$out"/fixture.mov "$out"/fixture.avi \
  "$out"/fixture.flv "$out"/fixture.wmv "$out"/fixture.mpeg "$out"/fixture.3gp "$out"/fixture.ogv \
  "$out"/fixture.m4v "$out"/fixture.ts "$out"/fixture.mp3 "$out"/fixture.wav "$out"/fixture.ogg \
  "$out"/fixture.flac "$out"/fixture.aac "$out"/fixture.m4a "$out"/fixture.opus "$out"/fixture.wma \
  "$out"/fixture.aiff "$out"/fixture.ac3
