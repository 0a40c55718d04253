-- What users send (issue 18), for wrk: every thread walks its own random order through the keys (team ids,
-- or list queries), so no two requests a thread has in flight ask for the same one and no cache of recent
-- answers can flatter the figure; a share of the requests PATCH the team instead of reading it. Each
-- request carries the next token of the list: wrk's script cannot tell its connections apart, so "a token
-- per connection" is as many tokens as connections, taken in turn, and "many callers" is 500 of them.
--
-- Arguments (bench/mixed-load.ts builds them): keys file, tokens file (one per line), PATCH share (0 to 1),
-- the GET path before and after the key, the PATCH path before the key.
package.path = (debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "?.lua;" .. package.path
done = require("report").done
setup = require("report").number_threads

local function lines(file)
  local list = {}
  for line in io.lines(file) do
    if line ~= "" then list[#list + 1] = line end
  end
  assert(#list > 0, file .. " holds no lines")
  return list
end

local keys, tokens, order
local at, next_token = 1, 1
local patch_share, get_before, get_after, patch_before, head
-- Either visibility at random: half the PATCHes change the team, as a user's edits would.
local patch_bodies = {
  '{"data":{"type":"teams","attributes":{"visibility":"secret"}}}',
  '{"data":{"type":"teams","attributes":{"visibility":"organization"}}}',
}

function init(args)
  keys, tokens = lines(args[1]), lines(args[2])
  patch_share = tonumber(args[3])
  get_before, get_after, patch_before = args[4], args[5] or "", args[6] or ""
  math.randomseed(os.time() * 100 + (thread_number or 0))
  order = {}
  for i = 1, #keys do order[i] = i end
  for i = #order, 2, -1 do
    local j = math.random(i)
    order[i], order[j] = order[j], order[i]
  end
  -- Threads start apart in the token list too.
  next_token = ((thread_number or 0) * 7919) % #tokens + 1
  head = " HTTP/1.1\r\nHost: " .. wrk.headers["Host"] .. "\r\nAuthorization: Bearer "
end

function request()
  local key = keys[order[at]]
  at = at % #order + 1
  -- Each pass over the keys starts one token further, so a key does not meet the same token every pass.
  if at == 1 then next_token = next_token % #tokens + 1 end
  local token = tokens[next_token]
  next_token = next_token % #tokens + 1
  if patch_share > 0 and math.random() < patch_share then
    local body = patch_bodies[math.random(2)]
    return "PATCH " .. patch_before .. key .. head .. token ..
      "\r\nContent-Type: application/vnd.api+json\r\nContent-Length: " .. #body .. "\r\n\r\n" .. body
  end
  return "GET " .. get_before .. key .. get_after .. head .. token .. "\r\n\r\n"
end
