/**
 * The layers of the source tree and the one rule between them, checked on the import graph
 * (ARCHITECTURE.md draws it). Every relative import of every file under src/, bin/ and client/
 * is read with TypeScript's own pre-processor (static, dynamic and type-only imports alike) and
 * its target's layer looked up:
 *
 *   core <- kit <- engine <- service <- adapters <- preset <- bin
 *              \<- converters/<one engine> <- operations
 *
 * core is pure (formats, graph, policy, job state, errors, ports). kit is what converters and
 * operations share (library loaders, processes, work dirs, isolation, the SSRF-safe fetcher).
 * A converter folder never imports another one: what two share belongs in kit. fileconv/testing
 * ships to host apps, so beside core, engine and service it reaches adapters only through their
 * public entries. fileconv/client imports nothing of the server but the wire module's types
 * (src/service/wire/, type-only: test/client/imports.test.ts). And no two folders import each
 * other, however indirectly.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

type Layer =
  | 'core'
  | 'kit'
  | 'engine'
  | 'service'
  | 'converters'
  | 'operations'
  | 'adapters'
  | 'preset'
  | 'testing'
  | 'entry'
  | 'bin'
  | 'client';

/** What each layer may import besides itself (a converter or operation: besides its own folder). */
const ALLOWED: Record<Layer, readonly Layer[]> = {
  core: [],
  kit: ['core'],
  engine: ['core', 'kit'],
  service: ['core', 'kit', 'engine'],
  converters: ['core', 'kit'],
  operations: ['core', 'kit', 'converters'],
  adapters: ['core', 'kit', 'engine', 'service'],
  preset: ['core', 'kit', 'engine', 'service', 'converters', 'operations', 'adapters'],
  // Adapters and the rest only through their package entries (checked below).
  testing: ['core', 'engine', 'service'],
  entry: ['core', 'engine'],
  bin: ['core', 'kit', 'engine', 'service', 'converters', 'operations', 'adapters', 'preset', 'entry'],
  client: [],
};

/** The one door of the client into the server: the wire contract's types (imported type-only). */
const CLIENT_WIRE = 'src/service/wire/index.ts';

/** The layer of a repository path, and the unit inside it that may not import its siblings. */
function placeOf(path: string): { layer: Layer; unit: string } | undefined {
  const parts = path.split('/');
  if (parts[0] === 'bin') return { layer: 'bin', unit: 'bin' };
  if (parts[0] === 'client') return { layer: 'client', unit: 'client' };
  if (parts[0] !== 'src') return undefined;
  if (path === 'src/index.ts') return { layer: 'entry', unit: 'entry' };
  const layer = parts[1] as Layer;
  if (!(layer in ALLOWED)) throw new Error(`${path} is in no layer: add its folder to ALLOWED`);
  // One folder per engine (converters) or operation family: a unit of its own.
  const unit = layer === 'converters' || layer === 'operations' ? `${layer}/${parts[2]}` : layer;
  return { layer, unit };
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .map((name) => `${dir}/${name}`)
    .filter((path) => /\.ts$/.test(path) && !path.endsWith('.d.ts'))
    .filter((path) => !path.startsWith('src/service/web/')); // the browser's script: its own tsconfig
}

function packageEntries(): Set<string> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { import: { default: string } }>;
  };
  return new Set(
    Object.values(pkg.exports)
      .filter((target) => typeof target !== 'string')
      .map((target) => target.import.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts')),
  );
}

/**
 * Imports that break the rule today, each removed by the commit that untangles it (issue 27's
 * layout step landed the move first). This list only ever shrinks.
 */
const KNOWN_BREAKS = new Set<string>([]);

/** Folder cycles left by the move, untangled with the breaks above. */
const KNOWN_CYCLES = new Set<string>([]);

interface Edge {
  from: string;
  to: string;
}

function importGraph(): Edge[] {
  const edges: Edge[] = [];
  for (const from of [...sourceFiles('src'), ...sourceFiles('bin'), ...sourceFiles('client')]) {
    const info = ts.preProcessFile(readFileSync(join(root, from), 'utf8'), true, true);
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const to = relative(root, resolve(root, dirname(from), fileName)).replace(/\.js$/, '.ts');
      edges.push({ from, to });
    }
  }
  return edges;
}

describe('architecture', () => {
  const edges = importGraph();
  const entries = packageEntries();

  it('reads a graph of the whole tree', () => {
    // A sanity floor: the tree has hundreds of files and thousands of imports.
    expect(edges.length).toBeGreaterThan(1500);
  });

  it('keeps every import pointing down the layers', () => {
    const broken: string[] = [];
    const stillKnown = new Set<string>();
    for (const { from, to } of edges) {
      const a = placeOf(from);
      const b = placeOf(to);
      if (!a || !b || a.unit === b.unit) continue;
      const ok =
        ALLOWED[a.layer].includes(b.layer) ||
        (a.layer === 'testing' && entries.has(to)) ||
        (a.layer === 'client' && to === CLIENT_WIRE) ||
        // Within a layer that is not split into units (core, kit...), anything goes.
        (a.layer === b.layer && a.layer !== 'converters' && a.layer !== 'operations');
      const edge = `${from} -> ${to}`;
      if (ok) continue;
      if (KNOWN_BREAKS.has(edge)) stillKnown.add(edge);
      else broken.push(edge);
    }
    expect(broken).toEqual([]);
    // A break that is gone leaves the list, so the list always says what is left to do.
    expect([...KNOWN_BREAKS].filter((edge) => !stillKnown.has(edge))).toEqual([]);
  });

  it('has no cycle between folders', () => {
    const folderEdges = new Map<string, Set<string>>();
    for (const { from, to } of edges) {
      const a = dirname(from);
      const b = dirname(to);
      if (a === b) continue;
      if (!folderEdges.has(a)) folderEdges.set(a, new Set());
      folderEdges.get(a)!.add(b);
    }
    const cycles = cyclesOf(folderEdges).map((cycle) => cycle.join(' '));
    expect(cycles.filter((cycle) => !KNOWN_CYCLES.has(cycle))).toEqual([]);
    expect([...KNOWN_CYCLES].filter((cycle) => !cycles.includes(cycle))).toEqual([]);
  });
});

/** The strongly connected components of more than one folder (Tarjan), each sorted. */
function cyclesOf(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}
