import { appendFileSync } from 'node:fs';
import type { Reporter, TestCase, TestResult } from '@playwright/test/reporter';

/**
 * The Playwright counterpart of node-test-reporter.mjs: one JSON line per finished test attempt,
 * `{"file", "ms"}`, appended to the file scripts/test.mjs names in E2E_FILE_TIMES.
 */
export default class FileDurations implements Reporter {
  private readonly out = process.env.E2E_FILE_TIMES;

  onTestEnd(test: TestCase, result: TestResult): void {
    if (this.out) appendFileSync(this.out, `${JSON.stringify({ file: test.location.file, ms: result.duration })}\n`);
  }

  printsToStdio(): boolean {
    return false;
  }
}
