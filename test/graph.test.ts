import { describe, expect, it } from 'vitest';
import { isFileconvError } from '../src/errors.js';
import { ConversionGraph } from '../src/graph/index.js';

const graph = ConversionGraph.fromConverters([
  {
    name: 'images',
    edges: [
      { from: 'png', to: 'jpg', cost: 1, lossy: true },
      { from: 'jpg', to: 'png', cost: 1 },
      { from: 'png', to: 'webp', cost: 1, lossy: true },
      { from: 'jpg', to: 'webp', cost: 1, lossy: true },
      { from: 'jpg', to: 'jpg', cost: 1, lossy: true },
    ],
  },
  {
    name: 'heic',
    edges: [
      { from: 'heic', to: 'png', cost: 2 },
      { from: 'heic', to: 'jpg', cost: 1, lossy: true },
    ],
  },
  { name: 'slow', edges: [{ from: 'png', to: 'webp', cost: 5, lossy: true }] },
]);

describe('ConversionGraph', () => {
  it('finds a direct edge', () => {
    const plan = graph.findPath('jpg', 'webp');
    expect(plan.steps.map((s) => [s.from, s.to, s.converter])).toEqual([['jpg', 'webp', 'images']]);
    expect(plan.cost).toBe(1);
    expect(plan.lossySteps).toBe(1);
  });

  it('chains several hops when no direct edge exists', () => {
    const plan = graph.findPath('heic', 'webp');
    expect(plan.steps.map((s) => s.to)).toEqual(['png', 'webp']);
  });

  it('prefers a lossless detour to a cheaper path that re-encodes twice', () => {
    // heic -> jpg -> webp costs 2 but is lossy twice; heic -> png -> webp costs 3, lossy once.
    const plan = graph.findPath('heic', 'webp');
    expect(plan.cost).toBe(3);
    expect(plan.lossySteps).toBe(1);
  });

  it('keeps the cheaper converter for the same pair', () => {
    expect(graph.findPath('png', 'webp').steps[0]?.converter).toBe('images');
  });

  it('converts a format to itself only through a self-edge', () => {
    expect(graph.findPath('jpg', 'jpg').steps).toHaveLength(1);
    expect(() => graph.findPath('png', 'png')).toThrow(/png into png/);
  });

  it('fails with UNSUPPORTED_CONVERSION when no path exists', () => {
    try {
      graph.findPath('webp', 'heic');
      expect.unreachable();
    } catch (error) {
      expect(isFileconvError(error, 'UNSUPPORTED_CONVERSION')).toBe(true);
    }
    expect(() => graph.findPath('mp3', 'png')).toThrow(/mp3 into png/);
  });

  it('respects the step limit', () => {
    expect(graph.canConvert('heic', 'webp', { maxSteps: 1 })).toBe(false);
    expect(graph.canConvert('heic', 'webp', { maxSteps: 2 })).toBe(true);
  });

  it('lists reachable targets', () => {
    expect(graph.targetsOf('heic')).toEqual(['jpg', 'png', 'webp']);
    expect(graph.targetsOf('jpg')).toEqual(['jpg', 'png', 'webp']);
    expect(graph.targetsOf('webp')).toEqual([]);
  });

  it('rejects an edge without a valid cost', () => {
    const g = new ConversionGraph();
    expect(() => g.addEdge('x', { from: 'a', to: 'b', cost: Number.NaN })).toThrow(/finite cost/);
    expect(() => g.addEdge('x', { from: 'a', to: 'b', cost: -1 })).toThrow(/finite cost/);
  });
});
