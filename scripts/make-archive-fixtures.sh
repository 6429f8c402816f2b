#!/bin/sh
# Regenerates the archive fixtures in fixtures/ (run from the repository root:
# `sh scripts/make-archive-fixtures.sh`). The committed files are what tests use; this script
# documents how they were made, each with a tool independent of fileconv's engine (libarchive's
# bsdtar): GNU tar with gzip, bzip2 and xz, Info-ZIP's zip, and 7-Zip's 7zz
# (`apt-get install -y tar gzip bzip2 xz-utils zip 7zip`).
#
# Every archive holds the same small tree (a text file, a UTF-8 name with a space, an executable
# script, a PNG, an empty folder) with fixed times, owners and order, so reruns give the same
# entries. The tars also hold a symlink that points inside the tree ('latest'): links within an
# archive are kept by the converter, links out of it are refused.
#
# fixture.rar cannot be made here: no free RAR writer exists (Debian ships none; RAR's compressor
# is proprietary). It is test/test.rar from the npm package unrar-js 0.2.3 (MIT, Kevin Kwok,
# 2015; https://github.com/boggan/unrar.js), a RAR 4 archive of testContent/hello.txt and
# testContent/pug.jpg, fetched below with `npm pack`.
set -eu

out="$(pwd)/fixtures"
tree="$(mktemp -d)"
trap 'rm -rf "$tree"' EXIT

mkdir -p "$tree/archive/docs" "$tree/archive/bin" "$tree/archive/empty"
printf 'A small archive fixture.\nSecond line.\n' > "$tree/archive/docs/readme.txt"
utf8_name="$(printf 'caf\303\251 notes.md')"
printf '# Notes\n\nCaf\303\251 cr\303\250me br\303\273l\303\251e.\n' > "$tree/archive/docs/$utf8_name"
printf '#!/bin/sh\necho hello\n' > "$tree/archive/bin/run.sh"
chmod 755 "$tree/archive/bin/run.sh"
cp fixtures/fixture.png "$tree/archive/docs/pixel.png"
find "$tree/archive" -exec touch -h -d '2024-01-02 03:04:05 UTC' {} +

# ---- tar family: GNU tar, then the compressors ----------------------------------------------
tarred="$tree/fixture.tar"
(cd "$tree" && ln -s docs/readme.txt archive/latest && touch -h -d '2024-01-02 03:04:05 UTC' archive/latest &&
  tar --format=posix --pax-option=delete=atime,delete=ctime --sort=name --owner=0 --group=0 \
    --numeric-owner --mtime='2024-01-02 03:04:05 UTC' -cf "$tarred" archive)
cp "$tarred" "$out/fixture.tar"
gzip -9 -n -c "$tarred" > "$out/fixture.tgz"
bzip2 -9 -c "$tarred" > "$out/fixture.tbz2"
xz -9 -c "$tarred" > "$out/fixture.txz"
rm "$tree/archive/latest"
touch -d '2024-01-02 03:04:05 UTC' "$tree/archive"

# ---- zip and 7z (no symlink: Windows tools, the usual readers of these, do not make them) ----
rm -f "$out/fixture.zip" "$out/fixture.7z"
(cd "$tree" && zip -q -X -r -9 "$out/fixture.zip" archive)
(cd "$tree" && 7zz a -bd -bso0 -mx=9 "$out/fixture.7z" archive)

# ---- rar: a sample shipped in an npm package (see above) ------------------------------------
(cd "$tree" && npm pack --silent unrar-js@0.2.3 >/dev/null && tar -xzf unrar-js-0.2.3.tgz)
# Its MIT notice ships beside it: fixtures/THIRD-PARTY-NOTICES.txt.
cp "$tree/package/test/test.rar" "$out/fixture.rar"
chmod 644 "$out/fixture.rar"
