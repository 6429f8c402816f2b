#!/bin/sh
# Regenerates the raster image fixtures of the 'image' family beyond the web formats (run from
# the repository root: `sh scripts/make-raster-fixtures.sh`). The committed files are what tests
# use; this script documents how they were made, each with a tool that is not fileconv and, where
# Debian has one, not the engine fileconv reads that format with (ImageMagick reads most of them):
#
#   ffmpeg 5.1 (Debian ffmpeg):        tga, pcx, ppm, pgm, pbm, qoi, exr
#   OpenJPEG's opj_compress:           jp2            (libopenjp2-tools)
#   libjxl's cjxl:                     jxl            (libjxl-tools)
#   ImageMagick 6 (Debian imagemagick): psd, hdr, dds (ffmpeg 5.1 writes none of them)
#   tifffile (python3-tifffile):       dng            (see make_dng below: a synthetic Bayer DNG)
#
# Every picture is ImageMagick's built-in 'rose:' photograph (70x46, opaque), so a test can compare
# any fixture's pixels against fixture-source.png. Each file stays under ~20 KB.
set -eu

out=fixtures
src="$out/raster/rose.png"
ff="ffmpeg -hide_banner -loglevel error -y -fflags +bitexact -flags:v +bitexact"
mkdir -p "$out/raster"

convert rose: -strip "$src"

$ff -i "$src" -c:v targa -f image2 "$out/fixture.tga"
$ff -i "$src" -c:v pcx -f image2 "$out/fixture.pcx"
$ff -i "$src" -c:v ppm -f image2 "$out/fixture.ppm"
$ff -i "$src" -c:v pgm -pix_fmt gray -f image2 "$out/fixture.pgm"
$ff -i "$src" -c:v pbm -pix_fmt monob -f image2 "$out/fixture.pbm"
$ff -i "$src" -c:v qoi -f image2 "$out/fixture.qoi"
# EXR holds linear light: the sRGB rose is linearised first (zscale), as any EXR writer does.
$ff -i "$src" -vf zscale=tin=iec61966-2-1:t=linear,format=gbrpf32le -c:v exr -compression zip1 \
  -f image2 "$out/fixture.exr"

# Lossless JPEG 2000 in its JP2 box container.
opj_compress -i "$src" -o "$out/fixture.jp2" >/dev/null
# Lossless JPEG XL (-d 0), in a bare codestream.
cjxl "$src" "$out/fixture.jxl" -d 0 -e 7 --quiet

# A two-layer PSD: the flattened composite first, then the rose and a half-transparent red
# square as layers; readers that flatten take the composite.
convert "$src" \( "$src" -set label rose \) \
  \( -size 30x20 xc:'rgba(255,0,0,0.5)' -set label square -set page +10+10 \) \
  -strip "$out/fixture.psd"
convert "$src" -strip "$out/fixture.hdr"
# SGI by ffmpeg; XPM (a palette: the rose has 1900-odd colours, reduced to 256) and PAM (with
# alpha) by ImageMagick.
$ff -i "$src" -c:v sgi -f image2 "$out/fixture.sgi"
convert "$src" -strip -colors 256 "$out/fixture.xpm"
convert "$src" -strip -alpha on "$out/fixture.pam"
convert "$src" -strip -define dds:compression=dxt1 -define dds:mipmaps=0 "$out/fixture.dds"

# A synthetic DNG: no camera-made raw file with a clear licence was at hand, so tifffile writes
# the rose as the Bayer mosaic a sensor would record (scripts/raster/make-dng.py says how).
# Camera makers' own formats (cr2, nef, arw, orf, raf, rw2) are not registered for want of such
# a file: they cannot be written by anything but the camera.
tmp=$(mktemp -d)
$ff -i "$src" -c:v ppm -f image2 "$tmp/rose.ppm"
/usr/bin/python3 scripts/raster/make-dng.py "$tmp/rose.ppm" "$out/fixture.dng"
rm -r "$tmp"

# A TIFF of 64-bit floating-point samples (0..1), which libvips refuses ("samples out of range")
# and ImageMagick reads: the sharp converter's fallback is tested on it. Written by tifffile.
tmp=$(mktemp -d)
$ff -i "$src" -c:v ppm -f image2 "$tmp/rose.ppm"
/usr/bin/python3 - "$tmp/rose.ppm" "$out/raster/float64.tiff" <<'PY'
import sys, numpy, tifffile
fields = open(sys.argv[1], "rb").read().split(maxsplit=4)
width, height = int(fields[1]), int(fields[2])
rgb = numpy.frombuffer(fields[4][: width * height * 3], dtype=numpy.uint8).reshape(height, width, 3)
tifffile.imwrite(sys.argv[2], rgb / 255.0, photometric="rgb", compression="zlib", software=False)
PY
rm -r "$tmp"

# A run-length-encoded TGA stored bottom-up (the TGA default, which ImageMagick 6 reads upside down
# unless told to orient it): written by Pillow (python3-pil).
/usr/bin/python3 -c "
from PIL import Image
Image.open('$src').convert('RGB').save('$out/raster/bottom-up.tga', compression='tga_rle')
"
