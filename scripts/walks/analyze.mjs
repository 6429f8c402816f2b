// usage: node analyze.mjs <tree> <coverage-dir> [pid]
// Lists the coverage files of the process's main thread (sorted by time); snapshot 1 = start-up, snapshot 2 = request path.
// Prints JSON {request:{files,lines,list}, whole:{files,lines,list}, startup:{...}}.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [tree, dir, pidArg] = process.argv.slice(2);
const root = path.resolve(tree) + '/';
const files = readdirSync(dir).filter((f) => f.startsWith('coverage-') && f.endsWith('.json'));
// Node names them coverage-<pid>-<timestamp µs>-<threadId>.json; the main thread is thread 0.
const parse = (f) => {
  const m = /^coverage-(\d+)-([\d.]+)-(\d+)\.json$/.exec(f);
  return { f, pid: +m[1], time: +m[2], thread: +m[3] };
};
let meta = files.map(parse);
const pids = [...new Set(meta.map((m) => m.pid))];
const pid = pidArg ? +pidArg : undefined;
if (pid) meta = meta.filter((m) => m.pid === pid);
else if (pids.length > 1) {
  console.error('several pids:', pids.join(','), 'pass one');
}
meta = meta.filter((m) => m.thread === 0);
meta.sort((a, b) => a.time - b.time);
const distSeen = new Set();
function executed(file) {
  const data = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
  const set = new Set();
  for (const script of data.result) {
    if (!script.url.startsWith('file://')) continue;
    let p;
    try {
      p = fileURLToPath(script.url);
    } catch {
      continue;
    }
    if (p.startsWith(`${root}dist/`)) distSeen.add(p);
    if (!p.startsWith(root) || !p.endsWith('.ts')) continue;
    const rel = p.slice(root.length);
    if (/(^|\/)(node_modules|dist|test)\//.test(rel) || rel.startsWith('test/')) continue;
    if (script.functions.some((fn) => fn.ranges[0].count > 0)) set.add(rel);
  }
  return set;
}
const lineCount = (rel) => {
  const t = readFileSync(root + rel, 'utf8');
  return (t.match(/\n/g) || []).length;
}; // = wc -l
const summary = (set) => {
  const list = [...set].sort();
  return { files: list.length, lines: list.reduce((s, r) => s + lineCount(r), 0), list };
};
if (meta.length < 2) {
  console.error(
    'need >= 2 coverage files, have',
    meta.map((m) => m.f),
  );
  process.exit(1);
}
const start = executed(meta[0].f),
  req = executed(meta[1].f);
const out = {
  coverageFiles: meta.map((m) => m.f),
  otherCoverageFiles: files.filter((f) => !meta.some((m) => m.f === f)),
  distFilesSeen: [...distSeen],
  startup: summary(start),
  request: summary(req),
  whole: summary(new Set([...start, ...req])),
};
console.log(JSON.stringify(out, null, 1));
