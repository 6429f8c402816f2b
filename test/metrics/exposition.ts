/**
 * A small reader of the Prometheus text exposition format (version 0.0.4), so the metrics tests
 * assert on what a Prometheus server would actually scrape rather than on prom-client objects:
 * metric families from `# TYPE` lines, samples with their labels (escapes undone) and values.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** Family name -> type (counter, gauge, histogram, summary, untyped). */
  types: Map<string, string>;
  samples: Sample[];
}

export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (type) types.set(type[1]!, type[2]!);
      continue;
    }
    samples.push(parseSample(line, index + 1));
  }
  return { types, samples };
}

function parseSample(line: string, lineNumber: number): Sample {
  const fail = (why: string) => new Error(`exposition line ${lineNumber}: ${why}: ${line}`);
  const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
  if (!nameMatch) throw fail('no metric name');
  const name = nameMatch[0];
  let at = name.length;
  const labels: Record<string, string> = {};
  if (line[at] === '{') {
    at++;
    while (line[at] !== '}') {
      const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(line.slice(at));
      if (!labelName || line[at + labelName[0].length] !== '=' || line[at + labelName[0].length + 1] !== '"')
        throw fail('bad label');
      at += labelName[0].length + 2;
      let value = '';
      for (; line[at] !== '"'; at++) {
        if (at >= line.length) throw fail('unterminated label value');
        if (line[at] === '\\') {
          at++;
          value += line[at] === 'n' ? '\n' : line[at];
        } else {
          value += line[at];
        }
      }
      labels[labelName[0]] = value;
      at++;
      if (line[at] === ',') at++;
    }
    at++;
  }
  // Prometheus reads values with Go's ParseFloat: NaN and Inf in any case (prom-client writes 'Nan').
  const [raw = ''] = line.slice(at).trim().split(' ');
  const special: Record<string, number> = {
    nan: Number.NaN,
    '+inf': Infinity,
    inf: Infinity,
    '-inf': -Infinity,
  };
  const value = special[raw.toLowerCase()] ?? Number(raw);
  if (raw === '' || (Number.isNaN(value) && raw.toLowerCase() !== 'nan')) throw fail('bad value');
  return { name, labels, value };
}

/** The sample of `name` whose labels are exactly `labels`; 0 when there is none (a counter not yet touched). */
export function sampleValue(
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): number {
  const wanted = Object.entries(labels);
  const found = exposition.samples.find(
    (sample) =>
      sample.name === name &&
      Object.keys(sample.labels).length === wanted.length &&
      wanted.every(([key, value]) => sample.labels[key] === value),
  );
  return found?.value ?? 0;
}

/** Every name a PromQL query may use: each family, plus _bucket/_sum/_count of histograms and summaries. */
export function seriesNames(exposition: Exposition): Set<string> {
  const names = new Set<string>();
  for (const [family, type] of exposition.types) {
    if (type === 'histogram') {
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${family}${suffix}`);
    } else if (type === 'summary') {
      for (const suffix of ['', '_sum', '_count']) names.add(`${family}${suffix}`);
    } else {
      names.add(family);
    }
  }
  return names;
}
