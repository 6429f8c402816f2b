# Shared helpers for the walk scripts.
set -euo pipefail
# W: these scripts; REPO: the checkout they belong to (its node_modules runs every tree);
# OUTDIR: where inputs, coverage and results go ($WALKS_OUT, default /tmp/fileconv-walks).
W=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$W/../.." && pwd)
OUTDIR=${WALKS_OUT:-/tmp/fileconv-walks}
mkdir -p "$OUTDIR"
[ -f "$OUTDIR/small.jpg" ] || node -e "require('$REPO/node_modules/sharp')({create:{width:64,height:64,channels:3,background:{r:200,g:80,b:30}}}).jpeg().toFile('$OUTDIR/small.jpg')"
[ -f "$OUTDIR/deck.pptx" ] || cp "$REPO/fixtures/fixture.pptx" "$OUTDIR/deck.pptx"
free_port() { node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
# wait_for <file> <pattern> <seconds>
wait_for() { local i=0; until grep -q -- "$2" "$1" 2>/dev/null; do sleep 0.2; i=$((i+1)); if [ $i -gt $(( $3 * 5 )) ]; then echo "timeout waiting for '$2' in $1" >&2; tail -20 "$1" >&2; return 1; fi; done; }
# snapshot <pid> <log> <n>: SIGUSR2 -> v8.takeCoverage() in the launcher; waits for its acknowledgement
snapshot() { kill -USR2 "$1"; wait_for "$2" "coverage snapshot $3 taken" 30; }
stop() { kill -TERM "$1" 2>/dev/null || true; for i in $(seq 1 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.2; done; kill -KILL "$1" 2>/dev/null || true; }
is_webp() { [ "$(head -c4 "$1")" = RIFF ] && [ "$(dd if="$1" bs=1 skip=8 count=4 2>/dev/null)" = WEBP ]; }
is_pdf() { [ "$(head -c5 "$1")" = "%PDF-" ]; }
# tsx from main's node_modules (by path: the walk runs outside the trees); the tree's own tsconfig (its paths map fileconv/* to sources)
TSX_IMPORT=file://$REPO/node_modules/tsx/dist/loader.mjs
# alive <pid>: fail when the process is gone
alive() { kill -0 "$1" 2>/dev/null || { echo "process $1 exited" >&2; return 1; }; }
# wait_for_pid <pid> <file> <pattern> <seconds>
wait_for_pid() { local i=0; until grep -q -- "$3" "$2" 2>/dev/null; do alive "$1" || { tail -30 "$2" >&2; return 1; }; sleep 0.2; i=$((i+1)); if [ $i -gt $(( $4 * 5 )) ]; then echo "timeout waiting for '$3' in $2" >&2; tail -20 "$2" >&2; return 1; fi; done; }
