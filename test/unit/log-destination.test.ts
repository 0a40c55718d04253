import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import pino from 'pino';
import { logDestination } from '../../src/http/log-destination.js';
import { waitUntil } from '../helpers/wait-until.js';

const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');

describe('log destination (src/http/log-destination.ts)', () => {
  it('batches lines, and writes a quiet batch within about a second', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-log-')), 'log');
    const logger = pino(logDestination(4096, file));
    logger.info('first line');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(read(file), '', 'held in the batch');
    await waitUntil(() => read(file).includes('first line'), 2500, 'the line is written by the flush timer');
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  it('writes each line at once with a buffer of 0', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'teamstage-log-')), 'log');
    const logger = pino(logDestination(0, file));
    logger.info('at once');
    await waitUntil(() => read(file).includes('at once'), 500, 'written without waiting for a flush');
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });
});
