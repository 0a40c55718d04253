import type { FastifyBaseLogger } from 'fastify';
import { listen } from '../db/pg-listen.js';
import { NOTIFY_CHANNEL } from './job-queue.js';

/**
 * LISTEN for new jobs (migration 011's trigger): a notification only wakes the worker; the table stays the
 * truth, and the worker's periodic poll covers anything missed while the connection was down.
 */
export function listenForJobs(databaseUrl: string, onNotify: (payload?: string) => void, log: FastifyBaseLogger): { stop(): Promise<void> } {
  return listen(databaseUrl, NOTIFY_CHANNEL, onNotify, log);
}
