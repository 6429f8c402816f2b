#!/usr/bin/env bash
# Walk 3: direct convertFile. usage: walk-direct.sh <label> <tree> [readme|defaults]
source "$(dirname "$0")/lib.sh"
LABEL=$1; TREE=$2; VARIANT=${3:-readme}
OUT=$OUTDIR/out/$LABEL-direct-$VARIANT; rm -rf "$OUT"; mkdir -p "$OUT/cov"
cd "$OUT"
NODE_V8_COVERAGE="$OUT/cov" TSX_TSCONFIG_PATH="$TREE/tsconfig.json" node --import "$TSX_IMPORT" "$W/direct.mjs" "$TREE" "$OUTDIR/small.jpg" "$OUT/result.webp" "$VARIANT" > "$OUT/run.log" 2>&1 &
PID=$!; wait $PID || { cat "$OUT/run.log"; exit 1; }
cat "$OUT/run.log"
grep -q '"webp":true' "$OUT/run.log"
node "$W/analyze.mjs" "$TREE" "$OUT/cov" "$PID" > "$OUT/result.json"
node -e "const r=require('$OUT/result.json');console.log('request path',r.request.files,r.request.lines,'| whole',r.whole.files,r.whole.lines,'| start-up',r.startup.files,r.startup.lines,'| other cov files',r.otherCoverageFiles.length,'dist',r.distFilesSeen.length)"
