-- Durable upserts one after another (run with -c1), as Benchmarks/search.sh wrote them from Python:
-- record bench-w{n % 50} named "Bench Writer n", so some resident searches gain or lose it.
local n = 0
function request()
  local body = string.format('{"name":"Bench Writer %d","team":"Design","email":"w%d@example.com"}', n, n)
  local path = string.format("/v1/collections/people/records/bench-w%d", n % 50)
  n = n + 1
  return wrk.format("PUT", path, {["Content-Type"] = "application/json"}, body)
end
function response(status, headers, body)
  if status ~= 200 and status ~= 201 then
    io.stderr:write("unexpected status " .. status .. ": " .. body .. "\n")
    wrk.thread:stop()
  end
end
