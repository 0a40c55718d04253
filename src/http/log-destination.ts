import pino from 'pino';

/**
 * Where the server's log lines go: stdout, in batches. Written one by one, each request-log line cost an
 * fs.write through libuv's thread pool and its callback, about 30 µs of CPU per request, a quarter of a
 * simple read (issue 18, measured with bench/cpu-per-request.ts). Batched at `bufferBytes` (about 15
 * lines at 4 KiB), and flushed at least once a second so a quiet server's lines still show promptly, and
 * at exit (pino flushes its destination then). A SIGKILL loses what the batch held: request logs are a
 * diagnostic, never what an acknowledged write depends on. `bufferBytes` 0 writes each line at once.
 * `dest`: stdout's descriptor, or a file (tests).
 */
export function logDestination(bufferBytes: number, dest: number | string = 1): pino.DestinationStream {
  const destination = pino.destination({ dest, sync: false, minLength: bufferBytes });
  if (bufferBytes > 0) {
    const timer = setInterval(() => destination.flush(), 1000);
    timer.unref(); // the flush timer never keeps the process alive
  }
  return destination;
}
