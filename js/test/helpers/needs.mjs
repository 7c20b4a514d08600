// Tests that need a tool (a browser, a package): skipped, saying why, when
// the tool is missing on a developer's machine; failed in CI (CI=true),
// where a skipped test would be a test that does not exist.

import test from 'node:test';

/** `test(name, options, fn)` unless `missing` (a reason, or false). */
export function testNeeding(missing, name, options, fn) {
  if (missing && process.env.CI === 'true') {
    return test(name, options, () => {
      throw new Error(`cannot run: ${missing} (CI=true: a missing tool is a failure, not a skip; scripts/setup.sh installs it)`);
    });
  }
  return test(name, { ...options, skip: missing || false }, fn);
}
