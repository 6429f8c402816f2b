#!/usr/bin/env bash
# Regenerates the e-book fixtures (fixture.mobi, fixture.azw3, fixture.fb2) from fixtures/fixture.epub
# (which LibreOffice writes: make-office-fixtures.sh) with calibre's ebook-convert (Debian: calibre,
# GPL-3.0). calibre runs headless and keeps its settings in a throwaway directory, not in $HOME.
# fixture.mobi is a plain MOBI 6 book (calibre's default, --mobi-file-type old), fixture.azw3 a
# KF8-only one: detection tells them apart by the MOBI header's version (src/formats/detect-ebook.ts).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/../fixtures"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
export QT_QPA_PLATFORM=offscreen HOME="$scratch" CALIBRE_CONFIG_DIRECTORY="$scratch/config" TMPDIR="$scratch"
convert() { ebook-convert "$out/fixture.epub" "$out/fixture.$1" "${@:2}" >/dev/null; }
convert mobi --mobi-file-type old
convert azw3
convert fb2
ls -l "$out"/fixture.{mobi,azw3,fb2}
