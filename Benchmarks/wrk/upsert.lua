-- Sequential durable upserts of one record (run with -c1 for single-write latency).
local n = 0
function request()
  n = n + 1
  local body = string.format('{"name":"Upsert %d","team":"Design","kind":"person","email":"u@example.com","salary":1}', n)
  return wrk.format("PUT", "/v1/collections/people/records/p-0000042", {["Content-Type"] = "application/json"}, body)
end
