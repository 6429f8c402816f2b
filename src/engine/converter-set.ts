/**
 * The engine's converters, held as registrations (core/ports/converter.ts): each is declared for
 * planning and loaded on first need, that is when a conversion runs through it or its
 * availability is asked, which planning does only for the converters on a candidate path. A
 * command-line conversion of one JPEG then loads sharp's module, not pdf.js's, exceljs's or
 * LibreOffice's; an API node that plans on declared edges loads none.
 *
 * A ready Converter object is taken as well: it is its own declaration, and loaded from the start.
 */
import { FileconvError } from '../core/errors.js';
import type {
  Availability,
  Converter,
  ConverterDeclaration,
  ConverterRegistration,
} from '../core/ports/index.js';
import { unavailable } from '../kit/converter-kit.js';

/** What an engine is given for each converter: a registration, or a ready converter. */
export type ConverterEntry = ConverterRegistration | Converter;

export interface ConverterSet {
  /** The registrations, in order of preference (the first wins a tie in the graph). */
  readonly registrations: readonly ConverterRegistration[];
  /** The registration named `name`. */
  get(name: string): ConverterRegistration | undefined;
  /**
   * The converter named `name`, loaded once; a failed load is tried again on the next call (the
   * package may have been installed since).
   */
  load(name: string): Promise<Converter>;
  /** What `name` declares: its loaded converter's own answers once loaded, else its registration's. */
  declarationOf(name: string, declared: boolean): ConverterDeclaration | undefined;
  /** The converters loaded so far. */
  loaded(): Converter[];
  /**
   * Whether `name`'s engine can run here, asked once per engine (loading the converter): a load
   * or a check that throws is "not available", with its message and install line.
   */
  availability(name: string): Promise<Availability>;
  /** Closes the converters loaded so far. */
  close(): Promise<void>;
}

function isRegistration(entry: ConverterEntry): entry is ConverterRegistration {
  return typeof (entry as Partial<ConverterRegistration>).load === 'function';
}

/** `entry` as a registration: a ready converter declares itself and loads as itself. */
export function registrationOf(entry: ConverterEntry): ConverterRegistration {
  if (isRegistration(entry)) return entry;
  const converter = entry;
  return {
    name: converter.name,
    edges: converter.edges,
    ...(converter.optionsSchema ? { optionsSchema: (to) => converter.optionsSchema!(to) } : {}),
    ...(converter.packaging ? { packaging: (to, options) => converter.packaging!(to, options) } : {}),
    load: async () => converter,
  };
}

function invalid(who: string, message: string): FileconvError {
  return new FileconvError('INVALID_OPTIONS', `${who}: ${message}`);
}

/** The set of `entries`; INVALID_OPTIONS (naming `who`) for a malformed entry or a name given twice. */
export function createConverterSet(entries: readonly ConverterEntry[], who: string): ConverterSet {
  if (!Array.isArray(entries)) throw invalid(who, 'converters must be an array of converters.');
  const byName = new Map<string, ConverterRegistration>();
  for (const entry of entries) {
    const valid =
      typeof entry?.name === 'string' &&
      Array.isArray(entry.edges) &&
      (isRegistration(entry) || typeof (entry as Partial<Converter>).convert === 'function');
    if (!valid) {
      throw invalid(who, 'each converter must have a name, edges and load() (or be a converter).');
    }
    if (byName.has(entry.name)) throw invalid(who, `two converters are named ${entry.name}.`);
    byName.set(entry.name, registrationOf(entry));
  }
  const loading = new Map<string, Promise<Converter>>();
  const ready = new Map<string, Converter>();
  // A ready converter is loaded from the start: its stats count and close() closes it, used or not.
  for (const entry of entries) {
    if (isRegistration(entry)) continue;
    ready.set(entry.name, entry);
    loading.set(entry.name, Promise.resolve(entry));
  }
  const answers = new Map<string, Promise<Availability>>();

  const set: ConverterSet = {
    registrations: [...byName.values()],
    get: (name) => byName.get(name),
    load(name) {
      const registration = byName.get(name);
      if (!registration) {
        return Promise.reject(new FileconvError('INTERNAL', `There is no converter named ${name}.`));
      }
      let loaded = loading.get(name);
      if (!loaded) {
        loaded = registration.load().then(
          (converter) => {
            ready.set(name, converter);
            return converter;
          },
          (error: unknown) => {
            loading.delete(name);
            throw error;
          },
        );
        loading.set(name, loaded);
      }
      return loaded;
    },
    declarationOf(name, declared) {
      return (declared ? undefined : ready.get(name)) ?? byName.get(name);
    },
    loaded: () => [...ready.values()],
    availability(name) {
      let answer = answers.get(name);
      if (!answer) {
        answer = set.load(name).then(
          (converter) => converter.available(),
          (error: unknown) => unavailable(error),
        );
        answer = answer.catch((error: unknown) => unavailable(error));
        answers.set(name, answer);
      }
      return answer;
    },
    async close() {
      await Promise.all([...ready.values()].map((converter) => converter.close?.()));
    },
  };
  return set;
}
