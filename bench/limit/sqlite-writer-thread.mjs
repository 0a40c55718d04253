// Plain JavaScript: a worker thread does not inherit tsx's loader.
/**
 * The SQLite limit's writer thread: its own connection with `synchronous=FULL`. Every pending UPDATE is
 * committed in one transaction; while that commit's fsync runs, new writes queue up for the next one
 * (group commit). A write is answered only after its COMMIT returned, and WAL readers on other
 * connections see a commit only once it is synced, so nothing is shown before it is durable.
 */
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';

const db = new SQLite(workerData.file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 5000');
const update = db.prepare('update limit_teams set body = ? where id = ?');
let pending = [];
let scheduled = false;

function flush() {
  scheduled = false;
  const batch = pending;
  pending = [];
  const done = [];
  db.exec('begin immediate');
  for (const write of batch) {
    update.run(write.body, write.id);
    done.push(write.seq);
  }
  db.exec('commit');
  parentPort.postMessage(done);
}

parentPort.on('message', (write) => {
  pending.push(write);
  if (!scheduled) {
    scheduled = true;
    setImmediate(flush);
  }
});
