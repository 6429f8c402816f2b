#!/bin/sh
# Regenerates the small font fixtures in fixtures/ (run from the repository root:
# `sh scripts/make-font-fixtures.sh`). Needs Debian's python3-fonttools and python3-brotli
# (fontTools' subsetter), woff2 (Google's woff2_compress) and the fonts the fixtures are cut
# from: fonts-dejavu-core (Bitstream Vera licence) and fonts-urw-base35 (AGPL-3.0 with a font
# exception; a dependency of ghostscript). The committed files are what tests use; this script
# documents how they were made, with tools independent of fileconv.
#
# Every fixture holds the glyphs of one short text, so each stays at a few KB: enough for tests
# to check a family name, a glyph count, and an outline and advance width surviving conversion.
# fixture.ttf keeps DejaVu's TrueType outlines and hinting; fixture.otf keeps Nimbus Sans' CFF
# outlines; fixture.woff is fontTools' WOFF 1.0 of the TrueType subset and fixture.woff2 Google's
# reference encoder's WOFF 2.0 (glyf transform, Brotli) of the same subset.
set -eu

out=fixtures
text='fileconv Hamburgefonstiv 0123456789'
# Debian's interpreter: the python3-fonttools module lives there, not in a pyenv or venv python.
python=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

subset() {
  # --name-IDs='*' keeps every name record (family, style, licence); --notdef-outline keeps .notdef
  # drawable; --no-recalc-timestamp keeps reruns byte-identical.
  "$python" -m fontTools.subset "$1" --text="$text" --name-IDs='*' --notdef-outline \
    --no-recalc-timestamp --output-file="$2" ${3:+--flavor=$3}
}

subset /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf "$out/fixture.ttf"
subset /usr/share/fonts/opentype/urw-base35/NimbusSans-Regular.otf "$out/fixture.otf"
subset /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf "$out/fixture.woff" woff

cp "$out/fixture.ttf" "$tmp/fixture.ttf"
woff2_compress "$tmp/fixture.ttf" >/dev/null
cp "$tmp/fixture.woff2" "$out/fixture.woff2"

ls -l "$out"/fixture.ttf "$out"/fixture.otf "$out"/fixture.woff "$out"/fixture.woff2
