-- Each "path<TAB>Authorization value" line of a file once, in order, then stop: the first read of
-- partitions no one has read yet. Run with -c1: the next request is the line after the answers so
-- far (wrk also calls request() once to check the script, so a counter of calls would skip one).
-- Prints "completed N" when done. wrk ... -s cold-users.lua URL -- FILE
local lines = {}
local answered = 0
function init(args)
  for line in io.lines(args[1]) do
    local path, authorization = line:match("^([^\t]+)\t(.+)$")
    lines[#lines + 1] = { path, authorization }
  end
end
function request()
  local line = lines[math.min(answered + 1, #lines)]
  return wrk.format("GET", line[1], { ["Authorization"] = line[2] })
end
function response(status, headers, body)
  answered = answered + 1
  if status ~= 200 then io.stderr:write("unexpected status " .. status .. ": " .. body .. "\n") end
  if status ~= 200 or answered >= #lines then wrk.thread:stop() end
end
function done(summary, latency, requests)
  io.write(string.format("completed %d\n", summary.requests))
end
