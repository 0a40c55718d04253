/**
 * A node:test reporter (used by scripts/run-tests.ts beside the usual spec/TAP output) that records, for each
 * test file, its wall time as the runner measured it (the file's own `test:complete` event: from the start of its
 * process to its exit) and the time inside its top-level tests. It writes one JSON line per file; the difference
 * between the two is what the file spends outside its tests: loading modules, top-level hooks, and waiting for
 * handles left open before its process can exit. That last part is also recorded on its own (`exitWaitMs`: from its
 * last top-level test's end to the process's end, as the events arrive); more than a second or two there means
 * a timer, server or connection the file left open. Plain JavaScript, so that node loads it without a loader.
 */
import path from 'node:path';

export default async function* fileTimes(source) {
  const files = new Map();
  const entry = (file) => {
    let found = files.get(file);
    if (!found) {
      found = { file: path.relative(process.cwd(), file), wallMs: 0, testsMs: 0, exitWaitMs: 0, failed: false, lastTestAt: 0 };
      files.set(file, found);
    }
    return found;
  };
  for await (const event of source) {
    if (event.type !== 'test:complete' && event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, name, details } = event.data;
    if (!file || nesting !== 0) continue;
    const duration = details?.duration_ms ?? 0;
    const isFileItself = path.resolve(name) === file || file.startsWith(path.resolve(name));
    if (isFileItself) {
      // The file's own entry (process isolation): its whole wall time; a failing file is marked.
      const found = entry(file);
      found.wallMs = Math.max(found.wallMs, duration);
      if (found.lastTestAt > 0) found.exitWaitMs = Math.max(0, performance.now() - found.lastTestAt);
      if (event.type === 'test:fail' || details?.passed === false) found.failed = true;
    } else if (event.type !== 'test:complete') {
      const found = entry(file);
      found.testsMs += duration;
      found.lastTestAt = performance.now();
      if (event.type === 'test:fail') found.failed = true;
    }
  }
  for (const found of files.values()) {
    // Without a file entry (an older node), the tests' own time is the best figure there is.
    if (found.wallMs === 0) found.wallMs = found.testsMs;
    const { lastTestAt, ...times } = found;
    yield `${JSON.stringify(times)}\n`;
  }
}
