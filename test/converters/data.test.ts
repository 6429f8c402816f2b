/**
 * The data converter: JSON, YAML and XML into each other, iCalendar and vCard to CSV and JSON,
 * each result parsed by python3's own json, xml.etree, csv (and PyYAML) rather than by this
 * code; bombs, external entities, deep nesting, lying and truncated inputs.
 */

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDataConverter } from '../../src/converters/data/index.js';
import { DATA_FACTORY } from '../../src/converters/data/registration.js';
import { createSpreadsheetConverter } from '../../src/converters/exceljs/index.js';
import { createEngine } from '../../src/index.js';
import { isolateConverter } from '../../src/kit/isolation/isolated.js';
import {
  context,
  expectCode,
  expectNoLeftovers,
  fixture,
  type Workspace,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';

const converter = withOptionsParsed(createDataConverter());

/** What python3 reads from `path` as `format`, as JSON text parsed back here. */
function readByPython(path: string, format: 'json' | 'yaml' | 'toml' | 'xml' | 'csv'): unknown {
  const programs = {
    json: 'import json,sys; print(json.dumps(json.load(open(sys.argv[1], encoding="utf-8"))))',
    yaml: 'import json,sys,yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1], encoding="utf-8"))))',
    toml: 'import json,sys,tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], "rb"))))',
    csv: 'import csv,json,sys; print(json.dumps(list(csv.reader(open(sys.argv[1], encoding="utf-8", newline="")))))',
    // Elements as [tag, attributes, text, children]: enough to compare structure and values.
    xml: `import json,sys
from xml.etree import ElementTree as ET
def walk(e): return [e.tag, e.attrib, (e.text or '').strip(), [walk(c) for c in e]]
print(json.dumps(walk(ET.parse(sys.argv[1]).getroot())))`,
  };
  return JSON.parse(execFileSync('python3', ['-c', programs[format], path], { encoding: 'utf8' }));
}

const PEOPLE = {
  people: [
    { name: 'Ada Lovelace', born: 1815, languages: ['English', 'French'], active: true },
    { name: 'Émile Borel', born: 1871, languages: ['French'], active: false },
  ],
};

async function convert(ws: Workspace, from: string, to: string, inputPath = fixture(`fixture.${from}`)) {
  const ctx = context(ws, from, to, { inputPath, outputPath: join(ws.outputs, `out-${from}.${to}`) });
  await converter.convert(ctx);
  return ctx.outputPath;
}

describe('json, yaml and xml', () => {
  it('is available', async () => {
    expect(await converter.available()).toMatchObject({ ok: true });
  });

  it('yaml -> json keeps every value and type (python json reads the PyYAML fixture back)', async () => {
    const ws = await workspace();
    expect(readByPython(await convert(ws, 'yaml', 'json'), 'json')).toEqual(PEOPLE);
  });

  it('yaml with CR-only line ends (old Mac files) -> json, as PyYAML reads it', async () => {
    const ws = await workspace();
    const crOnly = join(ws.inputs, 'cr.yaml');
    const lf = readFileSync(fixture('fixture.yaml'), 'utf8');
    await writeFile(crOnly, lf.replace(/\r?\n/g, '\r'));
    expect(readByPython(crOnly, 'yaml')).toEqual(PEOPLE);
    expect(readByPython(await convert(ws, 'yaml', 'json', crOnly), 'json')).toEqual(PEOPLE);
  });

  it('json -> yaml -> json round-trips (PyYAML reads the YAML)', async () => {
    const ws = await workspace();
    const json = join(ws.inputs, 'people.json');
    await writeFile(json, JSON.stringify(PEOPLE));
    const yaml = await convert(ws, 'json', 'yaml', json);
    expect(readByPython(yaml, 'yaml')).toEqual(PEOPLE);
  });

  it('xml -> json: attributes as @name, repeated elements as arrays, values as text', async () => {
    const ws = await workspace();
    const data = readByPython(await convert(ws, 'xml', 'json'), 'json');
    expect(data).toEqual({
      people: {
        person: [
          { '@born': '1815', name: 'Ada Lovelace', language: ['English', 'French'] },
          { '@born': '1871', name: 'Émile Borel', language: 'French' },
        ],
      },
    });
  });

  it('json -> xml and yaml -> xml: well-formed, read by xml.etree', async () => {
    const ws = await workspace();
    const fromYaml = readByPython(await convert(ws, 'yaml', 'xml'), 'xml') as unknown[];
    expect(fromYaml[0]).toBe('root');
    const people = (fromYaml[3] as unknown[][]).filter((child) => child[0] === 'people');
    expect(people).toHaveLength(2);
    expect(people[1]).toEqual([
      'people',
      {},
      '',
      [
        ['name', {}, 'Émile Borel', []],
        ['born', {}, '1871', []],
        ['languages', {}, 'French', []],
        ['active', {}, 'false', []],
      ],
    ]);
    const json = join(ws.inputs, 'odd.json');
    await writeFile(json, JSON.stringify({ 'first name': 'A & <B>', '1st': null, list: [1, 2] }));
    const odd = readByPython(await convert(ws, 'json', 'xml', json), 'xml');
    expect(odd).toEqual([
      'root',
      {},
      '',
      [
        ['first_name', {}, 'A & <B>', []],
        ['_1st', {}, '', []],
        ['list', {}, '1', []],
        ['list', {}, '2', []],
      ],
    ]);
  });

  it('xml -> yaml -> xml keeps the document (compared by xml.etree)', async () => {
    const ws = await workspace();
    const yaml = await convert(ws, 'xml', 'yaml');
    const back = await convert(ws, 'yaml', 'xml', yaml);
    expect(readByPython(back, 'xml')).toEqual(readByPython(fixture('fixture.xml'), 'xml'));
  });

  it('xml in the encoding it declares (IBM866, windows-1251) or with a UTF-16 mark -> json keeps its text', async () => {
    const ws = await workspace();
    for (const [name, bytes] of Object.entries(cyrillicFeeds())) {
      const input = join(ws.inputs, `${name}.xml`);
      await writeFile(input, bytes);
      expect(readByPython(await convert(ws, 'xml', 'json', input), 'json'), name).toEqual({
        rss: { title: 'Привет' },
      });
    }
    // A file that is not what it declares (UTF-8 bytes under a Shift_JIS declaration) says so.
    const lying = join(ws.inputs, 'lying.xml');
    await writeFile(
      lying,
      Buffer.from('<?xml version="1.0" encoding="Shift_JIS"?><rss><title>\u{1F600}</title></rss>'),
    );
    await expect(convert(ws, 'xml', 'json', lying)).rejects.toMatchObject({
      code: 'CORRUPT_INPUT',
      message: 'The file is not shift_jis text',
    });
  });
});

/** An RSS title 'Привет' in IBM866 and windows-1251 (each declared), and in UTF-16LE with its mark. */
function cyrillicFeeds(): Record<string, Buffer> {
  const declared = (encoding: string, title: number[]) =>
    Buffer.concat([
      Buffer.from(`<?xml version="1.0" encoding="${encoding}"?>\n<rss><title>`),
      Buffer.from(title),
      Buffer.from('</title></rss>\n'),
    ]);
  return {
    ibm866: declared('IBM866', [0x8f, 0xe0, 0xa8, 0xa2, 0xa5, 0xe2]),
    windows1251: declared('windows-1251', [0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]),
    utf16: Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('<?xml version="1.0" encoding="UTF-16"?>\n<rss><title>Привет</title></rss>\n', 'utf16le'),
    ]),
  };
}

describe('toml', () => {
  it('toml -> json and json -> toml keep the values (python json and tomllib)', async () => {
    const ws = await workspace();
    expect(readByPython(await convert(ws, 'toml', 'json'), 'json')).toEqual(PEOPLE);
    const json = join(ws.inputs, 'people.json');
    await writeFile(json, JSON.stringify({ ...PEOPLE, title: 'A "quoted" title', dropped: null }));
    const toml = readByPython(await convert(ws, 'json', 'toml', json), 'toml');
    // TOML has no null: the key is left out.
    expect(toml).toEqual({ ...PEOPLE, title: 'A "quoted" title' });
  });

  it('data whose top level is not a table cannot become TOML: a 4xx saying why', async () => {
    const ws = await workspace();
    const error = await expectCode(converter.convert(context(ws, 'jsonl', 'toml')), 'UNSUPPORTED_CONVERSION');
    expect(error.message).toMatch(/top level is an array/);
    await expectNoLeftovers(ws);
  });

  it('bad TOML is CORRUPT_INPUT', async () => {
    const ws = await workspace();
    const inputPath = join(ws.inputs, 'bad.toml');
    await writeFile(inputPath, '[people\nname = "x"\n');
    await expectCode(converter.convert(context(ws, 'toml', 'json', { inputPath })), 'CORRUPT_INPUT');
    await expectNoLeftovers(ws);
  });
});

describe('json lines', () => {
  it('jsonl -> json is the array of its lines, json -> jsonl one item a line (python json)', async () => {
    const ws = await workspace();
    expect(readByPython(await convert(ws, 'jsonl', 'json'), 'json')).toEqual(PEOPLE.people);
    const json = join(ws.inputs, 'people.json');
    await writeFile(json, JSON.stringify(PEOPLE.people));
    const lines = (await readFile(await convert(ws, 'json', 'jsonl', json), 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const reread = lines.map((line) =>
      JSON.parse(
        execFileSync('python3', ['-c', 'import json,sys; print(json.dumps(json.loads(sys.argv[1])))', line], {
          encoding: 'utf8',
        }),
      ),
    );
    expect(reread).toEqual(PEOPLE.people);
  });

  it('a bad line is CORRUPT_INPUT naming its number', async () => {
    const ws = await workspace();
    const inputPath = join(ws.inputs, 'bad.jsonl');
    await writeFile(inputPath, '{"a": 1}\n\n{"a": 2,\n');
    const error = await expectCode(
      converter.convert(context(ws, 'jsonl', 'json', { inputPath })),
      'CORRUPT_INPUT',
    );
    expect(error.message).toMatch(/line 3/);
    await expectNoLeftovers(ws);
  });
});

describe('ics and vcf', () => {
  it('ics -> csv: one row per event, folded lines and escapes undone (python csv)', async () => {
    const ws = await workspace();
    const rows = readByPython(await convert(ws, 'ics', 'csv'), 'csv');
    expect(rows).toEqual([
      ['summary', 'start', 'end', 'location', 'description'],
      [
        'Planning meeting, first quarter',
        '2024-03-15T09:00:00Z',
        '2024-03-15T10:30:00Z',
        'Room 4',
        'Agenda: budget\nthen the roadmap for the next release of the product, which runs long.',
      ],
      ['Café day', '2024-04-01', '2024-04-02', '', ''],
    ]);
  });

  it('ics -> json and vcf -> json (python json)', async () => {
    const ws = await workspace();
    const events = readByPython(await convert(ws, 'ics', 'json'), 'json') as Record<string, string>[];
    expect(events.map((event) => event.summary)).toEqual(['Planning meeting, first quarter', 'Café day']);
    expect(readByPython(await convert(ws, 'vcf', 'json'), 'json')).toEqual([
      {
        name: 'Ada Lovelace',
        emails: ['ada@example.org', 'ada.home@example.org'],
        phones: ['+44 20 7946 0000'],
        organization: 'Analytical Engines',
      },
      { name: 'Émile Borel', emails: [], phones: ['+33-1-55-55-55-55'], organization: '' },
    ]);
  });

  it('vcf -> csv: several emails in one cell (python csv)', async () => {
    const ws = await workspace();
    const rows = readByPython(await convert(ws, 'vcf', 'csv'), 'csv') as string[][];
    expect(rows[0]).toEqual(['name', 'emails', 'phones', 'organization']);
    expect(rows[1]).toEqual([
      'Ada Lovelace',
      'ada@example.org; ada.home@example.org',
      '+44 20 7946 0000',
      'Analytical Engines',
    ]);
  });
});

describe('bad input: stable 4xx codes, nothing left behind', () => {
  it('a YAML alias bomb is UNSAFE_INPUT', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'yaml', 'json', { inputPath: fixture('bad/yaml-bomb.yaml') });
    const error = await expectCode(converter.convert(ctx), 'UNSAFE_INPUT');
    expect(error.message).toMatch(/alias/);
    await expectNoLeftovers(ws);
  });

  it('an XML entity bomb and an external entity (XXE) are UNSAFE_INPUT, never expanded or read', async () => {
    const ws = await workspace();
    for (const file of ['bad/xml-bomb.xml', 'bad/xml-xxe.xml']) {
      const ctx = context(ws, 'xml', 'json', { inputPath: fixture(file) });
      const error = await expectCode(converter.convert(ctx), 'UNSAFE_INPUT');
      expect(error.message).toMatch(/entities/);
    }
    await expectNoLeftovers(ws);
  });

  it('deep nesting is INPUT_LIMIT_EXCEEDED in every format', async () => {
    const ws = await workspace();
    const deep = {
      json: `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      yaml: `${'['.repeat(5000)}${']'.repeat(5000)}`,
      xml: `<?xml version="1.0"?>${'<a>'.repeat(5000)}${'</a>'.repeat(5000)}`,
    };
    for (const [from, text] of Object.entries(deep)) {
      const inputPath = join(ws.inputs, `deep.${from}`);
      await writeFile(inputPath, text);
      await expectCode(
        converter.convert(context(ws, from, from === 'json' ? 'yaml' : 'json', { inputPath })),
        'INPUT_LIMIT_EXCEEDED',
      );
    }
    await expectNoLeftovers(ws);
  });

  it('truncated and lying inputs are CORRUPT_INPUT', async () => {
    const ws = await workspace();
    const cases: [string, string, string][] = [
      ['json', 'yaml', '{"people": [{"name": "Ada"'],
      ['xml', 'json', '<?xml version="1.0"?><people><person>Ada</per'],
      ['yaml', 'json', 'people:\n  - name: "Ada\n'],
      ['ics', 'csv', 'SUMMARY:no calendar here\n'],
    ];
    for (const [from, to, text] of cases) {
      const inputPath = join(ws.inputs, `bad.${from}`);
      await writeFile(inputPath, text);
      await expectCode(converter.convert(context(ws, from, to, { inputPath })), 'CORRUPT_INPUT');
    }
    // A PNG called .json.
    await expectCode(
      converter.convert(context(ws, 'json', 'yaml', { inputPath: fixture('fixture.png') })),
      'CORRUPT_INPUT',
    );
    await expectNoLeftovers(ws);
  });

  it('an input over the size limit is INPUT_LIMIT_EXCEEDED before it is read', async () => {
    const ws = await workspace();
    const small = withOptionsParsed(createDataConverter({ maxInputBytes: 10 }));
    await expectCode(small.convert(context(ws, 'yaml', 'json')), 'INPUT_LIMIT_EXCEEDED');
    await expectNoLeftovers(ws);
  });

  it('refuses options it does not know', async () => {
    const ws = await workspace();
    await expectCode(
      converter.convert(context(ws, 'yaml', 'json', { options: { pretty: true } })),
      'INVALID_OPTIONS',
    );
    expect(await readFile(fixture('fixture.yaml'), 'utf8')).toContain('people');
  });
});

describe('through the engine (detection and the graph)', () => {
  const engine = createEngine({ converters: [converter, createSpreadsheetConverter()] });
  afterAll(() => engine.close());

  it('yaml -> csv goes yaml -> json -> csv for an array of records (python csv)', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'rows.yaml');
    await writeFile(input, '- name: Ada\n  born: 1815\n- name: "Émile, Borel"\n  born: 1871\n');
    const output = join(ws.outputs, 'rows.csv');
    const report = await engine.convertFile(input, output);
    expect(report.path).toEqual(['yaml', 'json', 'csv']);
    expect(readByPython(output, 'csv')).toEqual([
      ['name', 'born'],
      ['Ada', '1815'],
      ['Émile, Borel', '1871'],
    ]);
  });

  it('jsonl -> csv goes jsonl -> json -> csv (python csv)', async () => {
    const ws = await workspace();
    const output = join(ws.outputs, 'rows.csv');
    const report = await engine.convertFile(fixture('fixture.jsonl'), output);
    expect(report.path).toEqual(['jsonl', 'json', 'csv']);
    const rows = readByPython(output, 'csv') as string[][];
    expect(rows[0]).toEqual(['name', 'born', 'languages', 'active']);
    expect(rows[2]?.[0]).toBe('Émile Borel');
  });

  it('json or yaml that is not a table -> csv is a 4xx saying why', async () => {
    const ws = await workspace();
    const error = await engine
      .convertFile(fixture('bad/not-tabular.json'), join(ws.outputs, 'x.csv'))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CORRUPT_INPUT', status: 422 });
    expect((error as Error).message).toMatch(/not an array of row objects: its top level is object/);
    const yamlError = await engine
      .convertFile(fixture('fixture.yaml'), join(ws.outputs, 'y.csv'))
      .catch((e: unknown) => e);
    expect(yamlError).toMatchObject({ code: 'CORRUPT_INPUT' });
    expect(await readdir(ws.outputs)).toEqual([]);
  });

  it('a file lying about its extension is CONTENT_MISMATCH', async () => {
    const ws = await workspace();
    const lying = join(ws.inputs, 'photo.yaml');
    await writeFile(lying, await readFile(fixture('fixture.png')));
    const error = await engine.convertFile(lying, join(ws.outputs, 'x.json')).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONTENT_MISMATCH' });
  });
});

describe('isolated, as the preset runs it', () => {
  const isolated = withOptionsParsed(isolateConverter(createDataConverter(), DATA_FACTORY));
  afterAll(() => isolated.close?.());

  it('converts in a child process and keeps the bomb refusal code', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'yaml', 'json');
    await isolated.convert(ctx);
    expect(readByPython(ctx.outputPath, 'json')).toEqual(PEOPLE);
    const bomb = context(ws, 'yaml', 'json', {
      inputPath: fixture('bad/yaml-bomb.yaml'),
      outputPath: join(ws.outputs, 'bomb.json'),
    });
    await expectCode(isolated.convert(bomb), 'UNSAFE_INPUT');
  });
});
