-- Durable upserts spread over 10,000 records (distinct ids, so concurrent writes can share a commit).
local n = 0
function request()
  n = n + 1
  local body = string.format('{"name":"Upsert %d","team":"Design","kind":"person","email":"u@example.com","salary":1}', n)
  return wrk.format("PUT", string.format("/v1/collections/people/records/w-%05d", n % 10000),
                    {["Content-Type"] = "application/json"}, body)
end
