-- What every bench script of wrk prints when the load is over: one JSON line, read by bench/wrk-report.ts.
-- Times in microseconds, as wrk measures them. The generator's own CPU time comes from os.clock(), which
-- counts every thread of the wrk process: the bench shows what the load generator cost beside the server.
local report = {}

-- wrk's setup(): gives each thread its number (thread_number, 0 up), so a script's threads can each take
-- their own names or their own order. Runs in wrk's main state, before the threads start.
local started = 0
function report.number_threads(thread)
  thread:set("thread_number", started)
  started = started + 1
end

function report.done(summary, latency)
  local errors = summary.errors
  io.write(string.format(
    '{"wrkReport":1,"durationUs":%d,"requests":%d,"p50Us":%d,"p99Us":%d,' ..
    '"connectErrors":%d,"readErrors":%d,"writeErrors":%d,"timeouts":%d,"statusErrors":%d,"generatorCpuSeconds":%.3f}\n',
    summary.duration, summary.requests, latency:percentile(50), latency:percentile(99),
    errors.connect, errors.read, errors.write, errors.timeout, errors.status, os.clock()))
end

return report
