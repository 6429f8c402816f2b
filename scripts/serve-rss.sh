#!/usr/bin/env bash
# The node process's RSS of `fileconv serve` (embedded defaults, the build in dist/) 8 s after it
# says "serving on", three times. usage: scripts/serve-rss.sh <label>
cd "$(dirname "$0")/.."
for i in 1 2 3; do
D=$(mktemp -d); PORT=$((20000 + RANDOM % 20000))
node bin/fileconv.js serve --port $PORT --host 127.0.0.1 --data $D --no-limits > $D.log 2>&1 &
P=$!
for t in $(seq 1 150); do grep -q "serving on" $D.log 2>/dev/null && break; sleep 0.2; done
sleep 8
echo "$1 run $i: $(grep VmRSS /proc/$P/status)"
kill $P; wait $P 2>/dev/null; rm -rf $D $D.log
done
