import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PlanJsonScanner, type PlanJsonBounds } from './plan-json-scanner.js';

/**
 * The worker of plan-json-checker.ts: checks spooled plan JSON uploads, one at a time, each read from its
 * file in pieces (plan-json-scanner.ts), on its own thread so that the server's event loop never waits for
 * it. A problem ends the read at once. Answers each `{ id, file }` with `{ id, check }`.
 */
const { bounds, pieceBytes } = workerData as { bounds: PlanJsonBounds; pieceBytes: number };

async function check(file: string) {
  const scanner = new PlanJsonScanner(bounds);
  for await (const piece of fs.createReadStream(file, { highWaterMark: pieceBytes })) {
    scanner.write(piece as Buffer);
    if (scanner.done) break;
  }
  return scanner.end();
}

parentPort!.on('message', ({ id, file }: { id: number; file: string }) => {
  check(file).then(
    (outcome) => parentPort!.postMessage({ id, check: outcome }),
    (error: Error) => parentPort!.postMessage({ id, error: error.message }),
  );
});
