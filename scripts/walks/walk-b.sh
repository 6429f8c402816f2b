#!/usr/bin/env bash
# Walk 1, Flow B under `fileconv serve` (one machine, embedded defaults): upload (multipart) -> convert (JSON, waits) -> download.
# IDLE=<seconds>: control run, no request between the snapshots (out/<label>-x-idle).
# usage: walk-b.sh <label> <tree>     e.g. walk-b.sh after /work/main ; walk-b.sh before /work/snap-before
source "$(dirname "$0")/lib.sh"
LABEL=$1; TREE=$2
OUT=$OUTDIR/out/$LABEL-b${IDLE:+-idle}; rm -rf "$OUT"; mkdir -p "$OUT/cov"
DATA=$(mktemp -d /tmp/walks-data-XXXX)
PORT=$(free_port)
cd "$OUT"   # no fileconv.config.json here
env -u REDIS_URL -u FILECONV_REDIS_URL NODE_V8_COVERAGE="$OUT/cov" FILECONV_DATA="$DATA" \
  TSX_TSCONFIG_PATH="$TREE/tsconfig.json" node --import "$TSX_IMPORT" "$W/cli-launch.mjs" "$TREE" serve --port "$PORT" --host 127.0.0.1 --data "$DATA" --no-limits >"$OUT/server.log" 2>&1 &
PID=$!; echo "$PID" > "$OUT/pid"
trap 'stop $PID; rm -rf "$DATA"' EXIT
wait_for_pid $PID "$OUT/server.log" "serving on" 120
sleep 3   # let start-up work after listen (recovery, sweeps, engine probes) finish
snapshot $PID "$OUT/server.log" 1
if [ -z "${IDLE:-}" ]; then
BASE=http://127.0.0.1:$PORT
UPLOAD=$(curl -fsS -F "file=@$OUTDIR/small.jpg;type=image/jpeg" $BASE/api/upload); echo "upload: $UPLOAD"
FILE_ID=$(node -p "($UPLOAD).fileId")
RESULT=$(curl -fsS -X POST $BASE/api/convert -H 'Content-Type: application/json' \
  -d "{\"fileId\":\"$FILE_ID\",\"fileName\":\"small.jpg\",\"targetFormat\":\"webp\"}"); echo "convert: $RESULT"
curl -fsS -o "$OUT/result.webp" "$BASE/api/download?id=$(node -p "($RESULT).downloadId")"
is_webp "$OUT/result.webp" && echo "result is WebP ($(wc -c < "$OUT/result.webp") bytes)" | tee "$OUT/check.txt"
else
  sleep "$IDLE"   # control run: no request, the same kind of interval
fi
sleep 1
snapshot $PID "$OUT/server.log" 2
stop $PID; trap - EXIT; rm -rf "$DATA"
node "$W/analyze.mjs" "$TREE" "$OUT/cov" "$PID" > "$OUT/result.json"
node -e "const r=require('$OUT/result.json');console.log('request path',r.request.files,r.request.lines,'| whole',r.whole.files,r.whole.lines,'| start-up',r.startup.files,r.startup.lines)"
