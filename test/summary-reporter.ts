/**
 * Prints one plain closing line after the run, `tests: N passed, N failed, N skipped`, so that
 * CI logs and scripts can read the outcome without parsing vitest's coloured summary; before it,
 * the slowest test files, since CI's time budget is spent by a few of them.
 */
import type { Reporter, TestModule } from 'vitest/node';

const SLOWEST_SHOWN = 12;

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
      // A file that failed to load has no tests but must still count as a failure.
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) counts.failed++;
    }
    counts.failed += unhandledErrors.length;
    const slowest = testModules
      .map((module) => {
        const { collectDuration, duration } = module.diagnostic();
        return {
          file: `${module.relativeModuleId} (${module.project.name})`,
          ms: collectDuration + duration,
        };
      })
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SLOWEST_SHOWN);
    if (slowest.length > 1) {
      const lines = slowest.map(({ file, ms }) => `  ${(ms / 1000).toFixed(0).padStart(5)} s  ${file}`);
      process.stdout.write(`\nslowest test files:\n${lines.join('\n')}\n`);
    }
    process.stdout.write(
      `\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`,
    );
  }
}
