/**
 * The conversion-path graph. Converters contribute edges `{from, to, cost, lossy}`; findPath
 * picks the best chain of steps from a source format to a target format.
 *
 * "Best" is lexicographic: fewest lossy steps first (a lossless detour beats a cheaper path
 * that re-encodes twice), then the lowest total cost, then the fewest steps. All three are
 * non-negative and additive, so Dijkstra over the tuple finds the optimum.
 *
 * Sound is tracked along a chain: content that has been in a format without sound (a PNG, a
 * GIF) has none, so a step that reads sound (`needsAudio`: a soundtrack to mp3) is never offered
 * after it. Without that, png -> gif -> mp4 -> mp3 looked like a conversion and could only fail
 * with "no audio stream". The search therefore runs over (format, still has sound) pairs.
 *
 * A step marked `finalOnly` (reading text out of a picture by OCR) may only end a chain: png ->
 * txt is what a user asks OCR for, but png -> txt -> pdf would turn a picture into a document of
 * guessed words where a missing PDF engine should have been named instead. A state reached by
 * such a step is kept apart from the same format reached otherwise, and never extended.
 *
 * Words are tracked the same way as sound: content keeps the weakest form of words of any format
 * it has been in (text, then pixels, then none). A photo made into a PDF holds pixels only, so a
 * step that reads a text layer (`readsWords: 'text'`: pdf -> txt) is never planned on it: jpg ->
 * pdf -> txt -> docx looked like a conversion and made an empty document. Its words are read by
 * OCR (`readsWords: 'pixels'`), which a video's frame never gets: mp4 -> gif -> txt is no scan.
 *
 * Likewise data that a step wrote as a list of records (`writesRecords`: a sheet's rows as JSON)
 * never reaches a step that needs an object on top (`needsObject`: TOML).
 */
import { FileconvError } from '../errors.js';
import type { FormatName, WordsForm } from '../formats/types.js';
import type { ConversionEdge } from '../ports/index.js';

/** One step of a planned conversion, bound to the converter that performs it. */
export interface ConversionStep {
  from: FormatName;
  to: FormatName;
  converter: string;
  cost: number;
  lossy: boolean;
}

export interface ConversionPlan {
  from: FormatName;
  to: FormatName;
  steps: ConversionStep[];
  cost: number;
  /** Number of steps that lose information. */
  lossySteps: number;
}

export interface ConversionGraphOptions {
  /**
   * Whether a format can hold sound (video and audio formats do). Default: every format can, so
   * nothing is ruled out.
   */
  carriesAudio?: (format: FormatName) => boolean;
  /**
   * How content in a format holds words (formats/lookup.ts wordsIn). Default: as text, so
   * nothing is ruled out.
   */
  wordsIn?: (format: FormatName) => WordsForm;
}

/** Word forms from strongest to weakest: content keeps the weakest it has been in. */
const WORD_FORMS: readonly WordsForm[] = ['text', 'pixels', 'none'];

function weaker(a: WordsForm, b: WordsForm): WordsForm {
  return WORD_FORMS.indexOf(a) >= WORD_FORMS.indexOf(b) ? a : b;
}

/** Whether content holding words as `held` still has them for a step reading them as `read`. */
function wordsReadable(held: WordsForm, read: WordsForm | undefined): boolean {
  return read === undefined || WORD_FORMS.indexOf(held) <= WORD_FORMS.indexOf(read);
}

export interface FindPathOptions {
  /** Longest chain considered. Default 3: longer chains are slow and rarely what anyone wants. */
  maxSteps?: number;
}

interface Weight {
  lossy: number;
  cost: number;
  steps: number;
}

function lighter(a: Weight, b: Weight): boolean {
  if (a.lossy !== b.lossy) return a.lossy < b.lossy;
  if (a.cost !== b.cost) return a.cost < b.cost;
  return a.steps < b.steps;
}

/** A step as the graph keeps it: the plan's step, what it reads (sound, words), whether it must end a chain. */
interface GraphStep {
  step: ConversionStep;
  needsAudio: boolean;
  finalOnly: boolean;
  readsWords: WordsForm | undefined;
  writesRecords: boolean;
  needsObject: boolean;
}

/** A chain found so far: where it ends, whether its content still has sound, its weight. */
interface Reached {
  format: FormatName;
  silent: boolean;
  /** The weakest form of words of the formats it has been in. */
  words: WordsForm;
  /** Written as a list of records by a step on the way. */
  records: boolean;
  /** Reached by a finalOnly step: a chain may end here but not go on. */
  ended: boolean;
  weight: Weight;
  steps: ConversionStep[];
}

export class ConversionGraph {
  /** Outgoing steps by source format; for each (from, to) pair only the best converter's step. */
  private readonly outgoing = new Map<FormatName, Map<FormatName, GraphStep>>();
  private readonly carriesAudio: (format: FormatName) => boolean;
  private readonly wordsIn: (format: FormatName) => WordsForm;

  constructor(options: ConversionGraphOptions = {}) {
    this.carriesAudio = options.carriesAudio ?? (() => true);
    this.wordsIn = options.wordsIn ?? (() => 'text');
  }

  /** Builds the graph from converters' declared edges; the first converter wins ties. */
  static fromConverters(
    converters: readonly { name: string; edges: readonly ConversionEdge[] }[],
    options: ConversionGraphOptions = {},
  ): ConversionGraph {
    const graph = new ConversionGraph(options);
    for (const converter of converters) {
      for (const edge of converter.edges) graph.addEdge(converter.name, edge);
    }
    return graph;
  }

  /** Adds an edge; if the pair already has one, the lighter step is kept. */
  addEdge(converter: string, edge: ConversionEdge): void {
    if (!(edge.cost >= 0) || !Number.isFinite(edge.cost)) {
      throw new FileconvError(
        'INVALID_OPTIONS',
        `Converter ${converter}: edge ${edge.from} -> ${edge.to} needs a finite cost >= 0.`,
      );
    }
    const step: ConversionStep = {
      from: edge.from,
      to: edge.to,
      converter,
      cost: edge.cost,
      lossy: edge.lossy ?? false,
    };
    let byTarget = this.outgoing.get(edge.from);
    if (!byTarget) {
      byTarget = new Map();
      this.outgoing.set(edge.from, byTarget);
    }
    const existing = byTarget.get(edge.to);
    if (!existing || lighter(weightOf(step), weightOf(existing.step)))
      byTarget.set(edge.to, {
        step,
        needsAudio: edge.needsAudio ?? false,
        finalOnly: edge.finalOnly ?? false,
        readsWords: edge.readsWords,
        writesRecords: edge.writesRecords ?? false,
        needsObject: edge.needsObject ?? false,
      });
  }

  /** Every step in the graph. */
  steps(): ConversionStep[] {
    return [...this.outgoing.values()].flatMap((byTarget) => [...byTarget.values()].map(({ step }) => step));
  }

  /** Formats that appear as a source of at least one edge. */
  sources(): FormatName[] {
    return [...this.outgoing.keys()].sort();
  }

  /**
   * The best chain from `from` to `to`. A format converts to itself only through a declared
   * self-edge (e.g. resizing a jpg). Throws UNSUPPORTED_CONVERSION when there is no chain.
   */
  findPath(from: FormatName, to: FormatName, options: FindPathOptions = {}): ConversionPlan {
    const maxSteps = options.maxSteps ?? 3;
    if (from === to) {
      const self = this.outgoing.get(from)?.get(to);
      if (self) return planOf(from, to, [self.step]);
      throw unsupported(from, to);
    }
    const best = this.shortestPaths(from, maxSteps);
    const found = best.get(to);
    if (!found) throw unsupported(from, to);
    return planOf(from, to, found.steps);
  }

  /** Whether any chain leads from `from` to `to`. */
  canConvert(from: FormatName, to: FormatName, options: FindPathOptions = {}): boolean {
    if (from === to) return this.outgoing.get(from)?.has(to) ?? false;
    return this.shortestPaths(from, options.maxSteps ?? 3).has(to);
  }

  /** Every format reachable from `from` (itself only through a self-edge), sorted by name. */
  targetsOf(from: FormatName, options: FindPathOptions = {}): FormatName[] {
    const reachable = new Set(this.shortestPaths(from, options.maxSteps ?? 3).keys());
    reachable.delete(from);
    if (this.outgoing.get(from)?.has(from)) reachable.add(from);
    return [...reachable].sort();
  }

  /**
   * Dijkstra over (lossy, cost, steps) from one source, bounded by maxSteps, over (format, has
   * sound) states; for each format reached, its lightest chain.
   */
  private shortestPaths(
    from: FormatName,
    maxSteps: number,
  ): Map<FormatName, { weight: Weight; steps: ConversionStep[] }> {
    const stateKey = (
      format: FormatName,
      silent: boolean,
      words: WordsForm,
      records: boolean,
      ended: boolean,
    ) => `${ended ? 'e' : ''}${silent ? 's' : 'a'}${records ? 'r' : ''}${words}:${format}`;
    const start: Reached = {
      format: from,
      silent: !this.carriesAudio(from),
      words: this.wordsIn(from),
      records: false,
      ended: false,
      weight: { lossy: 0, cost: 0, steps: 0 },
      steps: [],
    };
    const settled = new Set<string>();
    const frontier = new Map<string, Reached>([
      [stateKey(from, start.silent, start.words, false, false), start],
    ]);
    const best = new Map<FormatName, { weight: Weight; steps: ConversionStep[] }>();
    while (frontier.size > 0) {
      let current: string | undefined;
      for (const [key, entry] of frontier) {
        const currentEntry = current === undefined ? undefined : frontier.get(current);
        if (!currentEntry || lighter(entry.weight, currentEntry.weight)) current = key;
      }
      if (current === undefined) break;
      const entry = frontier.get(current)!;
      frontier.delete(current);
      settled.add(current);
      // States settle lightest first, so a format's first settled state holds its best chain.
      if (!best.has(entry.format)) best.set(entry.format, { weight: entry.weight, steps: entry.steps });
      if (entry.ended || entry.weight.steps >= maxSteps) continue;
      for (const next of this.outgoing.get(entry.format)?.values() ?? []) {
        const { step, finalOnly } = next;
        if (next.needsAudio && entry.silent) continue;
        if (!wordsReadable(entry.words, next.readsWords)) continue;
        if (next.needsObject && entry.records) continue;
        const silent = entry.silent || !this.carriesAudio(step.to);
        const words = weaker(entry.words, this.wordsIn(step.to));
        const records = entry.records || next.writesRecords;
        const key = stateKey(step.to, silent, words, records, finalOnly);
        if (settled.has(key)) continue;
        const weight = addWeight(entry.weight, step);
        const known = frontier.get(key);
        if (!known || lighter(weight, known.weight))
          frontier.set(key, {
            format: step.to,
            silent,
            words,
            records,
            ended: finalOnly,
            weight,
            steps: [...entry.steps, step],
          });
      }
    }
    best.delete(from);
    return best;
  }
}

function weightOf(step: ConversionStep): Weight {
  return { lossy: step.lossy ? 1 : 0, cost: step.cost, steps: 1 };
}

function addWeight(weight: Weight, step: ConversionStep): Weight {
  return {
    lossy: weight.lossy + (step.lossy ? 1 : 0),
    cost: weight.cost + step.cost,
    steps: weight.steps + 1,
  };
}

function planOf(from: FormatName, to: FormatName, steps: ConversionStep[]): ConversionPlan {
  return {
    from,
    to,
    steps,
    cost: steps.reduce((sum, step) => sum + step.cost, 0),
    lossySteps: steps.filter((step) => step.lossy).length,
  };
}

function unsupported(from: FormatName, to: FormatName): FileconvError {
  return new FileconvError('UNSUPPORTED_CONVERSION', `No converter here turns ${from} into ${to}.`, {
    details: { sourceFormat: from, targetFormat: to },
  });
}
