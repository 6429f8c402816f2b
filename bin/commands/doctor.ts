/** `fileconv doctor`: which conversion engines (and the embedded database) can run here, and how to install the missing ones. */

import type { ConversionEdge } from '../../src/core/ports/index.js';
import { conversionContextOf } from '../../src/engine/file-converter.js';
import { type ConverterStatus, createConverter } from '../../src/index.js';
import {
  absentPackages,
  type EngineGroup,
  installLine,
  missingPackages,
  stepPackagesMissing,
} from '../../src/kit/engine-packages.js';
import { mallocAdvice } from '../../src/kit/malloc-settings.js';
import { ocrOperations } from '../../src/operations/ocr/ocr-operation.js';
import { pdfOperations } from '../../src/operations/pdf/pdf-operations.js';
import { subtitleOperations } from '../../src/operations/subtitles/subtitle-operations.js';
import { defaultConverters } from '../../src/preset/converters.js';
import { printInOrder } from '../support/ordered-output.js';
import { table } from './formats.js';

/**
 * Prints the report; returns 0 when every engine is available, 1 otherwise. Every check starts at
 * once and each row prints as soon as it and the rows above it are done. A check finds the
 * engine's program and asks its version, or loads its library: it converts nothing, so an ok
 * engine is one that is installed and starts, not one proven on a file.
 */
export async function runDoctor(flags: { json?: boolean }): Promise<number> {
  // In-process operations: the doctor asks whether they could run, it runs none.
  const engine = createConverter({
    converters: defaultConverters(),
    operations: [...pdfOperations({ isolate: false }), ...ocrOperations(), ...subtitleOperations()],
  });
  // The engine's own memoized checks, one per converter, so each row can print when it is known.
  const context = conversionContextOf(engine, 'fileconv doctor');
  const checks: Promise<ConverterStatus>[] = [
    databaseStatus(),
    ...context.converters.registrations.map(
      async ({ name, edges }): Promise<ConverterStatus> => ({
        name,
        edges: edges.length,
        ...(await context.converters.availability(name)),
      }),
    ),
  ];
  // Steps whose own packages are missing are not planned (the engine's rule): say so on their row.
  const coverage = new Map(
    context.converters.registrations.map(({ name, edges }) => [name, edgeCoverage(edges)]),
  );
  // The schemas are for API descriptions; the doctor tells what runs and what installs the rest.
  const operationsChecked = engine
    .operations()
    .then((statuses) => statuses.map(({ optionsSchema: _schema, ...status }) => status));
  // Advice, never a failure: the allocator matters to a long-running server, not to a conversion.
  const memory = mallocAdvice();
  if (flags.json) {
    const [database, ...checked] = await Promise.all(checks);
    const converters = checked.map((status) => {
      const absent = coverage.get(status.name)?.absent ?? [];
      return absent.length > 0 ? { ...status, packagesMissing: absent } : status;
    });
    const operations = await operationsChecked;
    process.stdout.write(
      `${JSON.stringify({ node: process.version, converters, database, operations, ...(memory ? { memory } : {}) }, null, 2)}\n`,
    );
    return [database, ...converters].every((entry) => entry?.ok) ? 0 : 1;
  }
  process.stdout.write(`Node.js ${process.version}\n`);
  process.stdout.write(
    'Each engine is found and asked its version (a library: loaded); nothing is converted.\n\n',
  );
  // Widths known before any check ends, so each row prints alone; the details, of unknown width, come last.
  const names = ['database', ...context.converters.registrations.map(({ name }) => name)];
  const provides = (status: ConverterStatus) =>
    status.edges === 0 ? 'the data dir of fileconv serve' : providesText(coverage.get(status.name));
  const widths = [
    Math.max('ENGINE'.length, ...names.map((name) => name.length)),
    'MISSING'.length,
    Math.max(
      'PROVIDES'.length,
      provides({ name: 'database', edges: 0, ok: true }).length,
      ...[...coverage.values()].map((each) => providesText(each).length),
    ),
  ];
  const details = (status: ConverterStatus) => {
    if (!status.ok) return status.reason ?? '';
    const absent = coverage.get(status.name)?.absent ?? [];
    return [status.version, absent.length > 0 ? `(${stepPackagesMissing(absent).reason})` : undefined]
      .filter(Boolean)
      .join(' ');
  };
  const row = (cells: readonly string[]) =>
    `${cells
      .map((cell, index) => cell.padEnd(widths[index] ?? 0))
      .join('  ')
      .trimEnd()}\n`;
  process.stdout.write(row(['ENGINE', 'STATUS', 'PROVIDES', 'DETAILS']));
  const statuses = await printInOrder(checks, (status) =>
    process.stdout.write(row([status.name, status.ok ? 'ok' : 'MISSING', provides(status), details(status)])),
  );
  const missing = statuses.filter((entry) => !entry.ok);
  const partial = statuses.filter((entry) => entry.ok && (coverage.get(entry.name)?.absent.length ?? 0) > 0);
  if (missing.length > 0 || partial.length > 0) {
    process.stdout.write('\nTo install what is missing:\n');
    for (const converter of missing)
      process.stdout.write(`  ${converter.name}: ${converter.install ?? converter.reason ?? 'see README'}\n`);
    for (const converter of partial)
      process.stdout.write(
        `  ${converter.name} (its other conversions): ${stepPackagesMissing(coverage.get(converter.name)!.absent).install}\n`,
      );
  }
  const operations = await operationsChecked;
  // Features of the library that convert nothing: shown for what they need, never a failure.
  process.stdout.write('\nOptional features:\n');
  process.stdout.write(
    table(
      ['FEATURE', 'STATUS', 'FOR', 'INSTALL'],
      OPTIONAL_FEATURES.map(([group, purpose]) => [
        group,
        missingPackages(group).length === 0 ? 'ok' : 'not installed',
        purpose,
        installLine(group),
      ]),
    ),
  );
  // Operations on whole documents (fileconv pdf, and jobs over HTTP): optional too, with their engines' licences.
  process.stdout.write(
    '\nDocument operations (jobs with "operation" over HTTP; the PDF ones also as fileconv pdf <op>):\n',
  );
  process.stdout.write(
    table(
      ['OPERATION', 'STATUS', 'DETAILS', 'INSTALL'],
      operations.map((operation) => [
        operation.name,
        operation.ok ? 'ok' : 'not installed',
        operation.ok ? operation.description : (operation.reason ?? ''),
        operation.ok ? '' : (operation.install ?? ''),
      ]),
    ),
  );
  if (memory) process.stdout.write(`\nMemory: ${memory}\n`);
  return missing.length === 0 ? 0 : 1;
}

const OPTIONAL_FEATURES: readonly (readonly [EngineGroup, string])[] = [
  ['s3', 'S3 storage (fileconv serve/worker with FILECONV_S3_BUCKET)'],
  ['redis', 'Redis job store, queue and counters (FILECONV_REDIS_URL)'],
  ['express', 'fileconv/http/express'],
  ['fastify', 'fileconv/http/fastify'],
  ['metrics', '--metrics-port, fileconv/metrics'],
  ['pretty logs', 'readable logs on a terminal'],
  ['telemetry', 'OpenTelemetry spans'],
];

/** The embedded database's binding, in the shape of a converter's status (it provides no conversions). */
async function databaseStatus(): Promise<ConverterStatus> {
  const { loadSqlite, SQLITE_INSTALL } = await import('../../src/adapters/sqlite/sqlite-package.js');
  try {
    const Database = await loadSqlite();
    const memory = new Database(':memory:');
    const version = memory.prepare('SELECT sqlite_version()').pluck().get() as string;
    memory.close();
    return { name: 'database', edges: 0, ok: true, version: `better-sqlite3, SQLite ${version}` };
  } catch (error) {
    return {
      name: 'database',
      edges: 0,
      ok: false,
      reason: error instanceof Error ? error.message : String(error),
      install: SQLITE_INSTALL,
    };
  }
}

/** How many of a converter's edges have their own packages (edge.packages) installed, and which are not. */
export function edgeCoverage(
  edges: readonly Pick<ConversionEdge, 'packages'>[],
  absentOf: (packages: readonly string[] | undefined) => string[] = absentPackages,
): { usable: number; total: number; absent: string[] } {
  const absentByEdge = edges.map((edge) => absentOf(edge.packages));
  return {
    usable: absentByEdge.filter((absent) => absent.length === 0).length,
    total: edges.length,
    absent: [...new Set(absentByEdge.flat())].sort(),
  };
}

function providesText(coverage: { usable: number; total: number } | undefined): string {
  if (!coverage) return '';
  return coverage.usable === coverage.total
    ? `${coverage.total} conversions`
    : `${coverage.usable} of ${coverage.total} conversions`;
}
