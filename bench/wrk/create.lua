-- POST rows, for wrk: every request creates a team with a name no request used before (the prefix is
-- unique to the run, then the thread and a counter), with the bearer token given.
--
-- Arguments (bench/create-load.ts builds them): the path, the token, the name prefix.
package.path = (debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "?.lua;" .. package.path
done = require("report").done
setup = require("report").number_threads

local head, prefix
local counter = 0

function init(args)
  head = "POST " .. args[1] .. " HTTP/1.1\r\nHost: " .. wrk.headers["Host"] .. "\r\nAuthorization: Bearer " .. args[2] ..
    "\r\nContent-Type: application/vnd.api+json\r\nContent-Length: "
  prefix = args[3] .. "-t" .. (thread_number or 0) .. "-"
end

function request()
  counter = counter + 1
  local body = '{"data":{"type":"teams","attributes":{"name":"' .. prefix .. counter .. '"}}}'
  return head .. #body .. "\r\n\r\n" .. body
end
