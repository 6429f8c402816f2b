#!/bin/sh
# Regenerates the print and vector fixtures in fixtures/ (run from the repository root:
# `sh scripts/make-vector-fixtures.sh`). Needs only a shell and gzip. The committed files are what
# tests use; this script documents how they were made.
#
# PostScript is a programming language, and a PostScript program written by hand is as real a
# PostScript file as one a printer driver writes: both fixtures are small DSC-conforming programs
# written here (their text is what the tests read back with pdftotext). Text is set in Helvetica,
# which Ghostscript substitutes with its own Nimbus Sans, as it does for any file that does not
# embed its fonts. fixture.svgz is fixture.svg compressed by gzip (-n: no name or time stamp, so
# reruns give the same bytes).
set -eu

out=fixtures

# An EPS picture: 200 x 100 pt bounding box, a filled and a stroked rectangle, one line of text.
# No showpage is needed in EPS (the including program supplies it), but many writers add one.
cat > "$out/fixture.eps" <<'PS'
%!PS-Adobe-3.0 EPSF-3.0
%%BoundingBox: 0 0 200 100
%%HiResBoundingBox: 0 0 200 100
%%Title: fileconv EPS fixture
%%Creator: hand-written (scripts/make-vector-fixtures.sh)
%%LanguageLevel: 2
%%Pages: 1
%%EndComments
%%Page: 1 1
gsave
0.85 0.9 1 setrgbcolor 0 0 200 100 rectfill
0 0.2 0.8 setrgbcolor 4 setlinewidth 10 10 180 80 rectstroke
/Helvetica findfont 18 scalefont setfont 0 setgray
24 44 moveto (EPS fixture 7) show
grestore
showpage
%%Trailer
%%EOF
PS

# A two-page PostScript document on US Letter, one heading per page and a shape.
cat > "$out/fixture.ps" <<'PS'
%!PS-Adobe-3.0
%%Title: fileconv PostScript fixture
%%Creator: hand-written (scripts/make-vector-fixtures.sh)
%%Pages: 2
%%DocumentMedia: Letter 612 792 0 () ()
%%LanguageLevel: 2
%%EndComments
%%BeginSetup
<< /PageSize [612 792] >> setpagedevice
%%EndSetup
%%Page: 1 1
/Helvetica findfont 28 scalefont setfont
72 700 moveto (PostScript page one) show
0.8 0.1 0.1 setrgbcolor newpath 306 400 100 0 360 arc fill
showpage
%%Page: 2 2
/Helvetica findfont 28 scalefont setfont
72 700 moveto (PostScript page two) show
0 0.5 0 setrgbcolor 6 setlinewidth newpath 72 300 moveto 540 300 lineto stroke
showpage
%%Trailer
%%EOF
PS

gzip -9 -n -c "$out/fixture.svg" > "$out/fixture.svgz"
