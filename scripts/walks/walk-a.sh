#!/usr/bin/env bash
# Walk 2, Flow A pptx -> pdf on Redis + S3 (s3rver): an API node (`serve --no-worker`) and a worker (`fileconv worker`),
# each with its own coverage. Grant -> presigned PUT -> job -> poll -> download.
# IDLE=<seconds>: control run, no request between the snapshots (out/<label>-x-idle).
# usage: walk-a.sh <label> <tree>
source "$(dirname "$0")/lib.sh"
LABEL=$1; TREE=$2
OUT=$OUTDIR/out/$LABEL-a${IDLE:+-idle}; rm -rf "$OUT"; mkdir -p "$OUT/cov-api" "$OUT/cov-worker"
TMPD=$(mktemp -d /tmp/walks-a-XXXX); mkdir -p "$TMPD/api" "$TMPD/worker" "$TMPD/s3"
RPORT=$(free_port); SPORT=$(free_port); PORT=$(free_port); BUCKET=fileconv-walk
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do stop "$p"; done; rm -rf "$TMPD"; }
trap cleanup EXIT
redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize no > "$OUT/redis.log" 2>&1 &
PIDS+=($!); echo $! > "$OUT/redis.pid"
node "$W/s3rver.mjs" "$SPORT" "$TMPD/s3" "$BUCKET" > "$OUT/s3rver.log" 2>&1 &
PIDS+=($!); echo $! > "$OUT/s3rver.pid"
wait_for "$OUT/redis.log" "Ready to accept connections" 30
wait_for "$OUT/s3rver.log" "s3rver listening" 30
# Each tree's documented variables: after reads FILECONV_REDIS_URL / FILECONV_S3_*, before REDIS_URL / S3_*.
COMMON=(AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1
  FILECONV_SIGNING_SECRET=a-secret-shared-by-every-node-of-this-walk-0123456789
  TSX_TSCONFIG_PATH="$TREE/tsconfig.json")
if [ -d "$TREE/src/engine" ]; then
  COMMON+=(FILECONV_REDIS_URL=redis://127.0.0.1:$RPORT FILECONV_S3_BUCKET=$BUCKET FILECONV_S3_ENDPOINT=http://127.0.0.1:$SPORT
    FILECONV_S3_FORCE_PATH_STYLE=1 FILECONV_S3_REGION=us-east-1)
else
  COMMON+=(REDIS_URL=redis://127.0.0.1:$RPORT S3_BUCKET=$BUCKET S3_ENDPOINT=http://127.0.0.1:$SPORT
    S3_FORCE_PATH_STYLE=true S3_REGION=us-east-1)
fi
cd "$OUT"
env "${COMMON[@]}" NODE_V8_COVERAGE="$OUT/cov-api" node --import "$TSX_IMPORT" "$W/cli-launch.mjs" "$TREE" \
  serve --no-worker --port "$PORT" --host 127.0.0.1 --data "$TMPD/api" --no-limits > "$OUT/api.log" 2>&1 &
API=$!; PIDS+=($API); echo $API > "$OUT/api.pid"
env "${COMMON[@]}" NODE_V8_COVERAGE="$OUT/cov-worker" node --import "$TSX_IMPORT" "$W/cli-launch.mjs" "$TREE" \
  worker --data "$TMPD/worker" > "$OUT/worker.log" 2>&1 &
WORKER=$!; PIDS+=($WORKER); echo $WORKER > "$OUT/worker.pid"
wait_for_pid $API "$OUT/api.log" "serving on" 120
wait_for_pid $WORKER "$OUT/worker.log" "fileconv worker: converting" 120
sleep 3
snapshot $API "$OUT/api.log" 1; snapshot $WORKER "$OUT/worker.log" 1
if [ -z "${IDLE:-}" ]; then
BASE=http://127.0.0.1:$PORT
SIZE=$(wc -c < "$OUTDIR/deck.pptx")
CT=application/vnd.openxmlformats-officedocument.presentationml.presentation
GRANT=$(curl -fsS -X POST $BASE/api/files/get-upload-url -H 'Content-Type: application/json' \
  -d "{\"fileName\":\"deck.pptx\",\"fileSize\":$SIZE,\"contentType\":\"$CT\"}"); echo "grant: $GRANT"
curl -fsS -X PUT "$(node -p "($GRANT).uploadUrl")" -H "Content-Type: $CT" --data-binary "@$OUTDIR/deck.pptx" -w 'PUT %{http_code}\n'
JOB=$(curl -fsS -X POST $BASE/api/jobs/create -H 'Content-Type: application/json' \
  -d "{\"fileKey\":\"$(node -p "($GRANT).fileKey")\",\"sourceFormat\":\"pptx\",\"targetFormat\":\"pdf\",\"fileSize\":$SIZE}"); echo "job: $JOB"
JOB_URL=$BASE/api/jobs/$(node -p "($JOB).jobId")
POLLS=1; STATUS=$(curl -fsS $JOB_URL)
while [[ $STATUS == *'"status":"queued"'* || $STATUS == *'"status":"processing"'* ]]; do
  sleep 0.5; POLLS=$((POLLS+1)); STATUS=$(curl -fsS $JOB_URL)
  [ $POLLS -lt 600 ] || { echo "job never finished" >&2; exit 1; }
done
echo "status after $POLLS polls: $STATUS" | tee "$OUT/status.txt"
[[ $STATUS == *'"status":"completed"'* ]]
DL=$(node -p "($STATUS).downloadUrl"); echo "download: $DL" >> "$OUT/status.txt"
curl -fsS -o "$OUT/result.pdf" "$DL"
is_pdf "$OUT/result.pdf" && echo "result is PDF ($(wc -c < "$OUT/result.pdf") bytes)" | tee "$OUT/check.txt"
else
  sleep "$IDLE"   # control run: no request, the same kind of interval
fi
sleep 1
snapshot $API "$OUT/api.log" 2; snapshot $WORKER "$OUT/worker.log" 2
cleanup; trap - EXIT
for role in api worker; do
  node "$W/analyze.mjs" "$TREE" "$OUT/cov-$role" "$(cat "$OUT/$role.pid")" > "$OUT/result-$role.json"
  node -e "const r=require('$OUT/result-$role.json');console.log('$role: request path',r.request.files,r.request.lines,'| whole',r.whole.files,r.whole.lines,'| start-up',r.startup.files,r.startup.lines,'| other cov files',r.otherCoverageFiles.length,'dist',r.distFilesSeen.length)"
done
