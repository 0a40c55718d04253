/**
 * Watches the event loop while work happens elsewhere (a worker thread, a child process): `stop()` answers the
 * longest turn, the one still open included (a loop held until the work ended had no tick since). Judged against
 * the work's own length, it tells a loop held by the work (one turn as long as the work) from a loaded machine
 * pausing the whole process a while, whichever thread works: a ratio, not a time.
 */
export function watchEventLoopTurns(intervalMs = 10): { stop(): number } {
  let longestTurn = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    longestTurn = Math.max(longestTurn, now - last);
    last = now;
  }, intervalMs);
  return {
    stop() {
      clearInterval(ticker);
      return Math.max(longestTurn, performance.now() - last);
    },
  };
}
