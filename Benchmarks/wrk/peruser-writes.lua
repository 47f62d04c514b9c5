-- Durable upserts into resident per-user partitions, one after another (run with -c1): the
-- orders of users 0–9 in turn, each with a new status, as Benchmarks/peruser.py writes them.
-- wrk ... -s peruser-writes.lua URL -- USERS RECORDS SERVICE_TOKEN
local statuses = {"Processing", "Shipped", "Delivered", "Cancelled"}
local items = {"Espresso machine", "Milk frother", "Coffee beans", "Burr grinder", "Headlamp", "Rain jacket", "Sketchbook", "Easel"}
local users, records, authorization
local k = 0
function init(args)
  users, records = tonumber(args[1]), tonumber(args[2])
  authorization = "Bearer " .. args[3]
end
function request()
  local per = math.max(1, math.floor(records / users))
  local n = k % 10 + users * (math.floor(k / 10) % per)
  local id = string.format("o-%07d", n)
  local body = string.format(
    '{"id":"%s","owner":"u-%05d","status":"%s","item":"%s","total":%.2f,"placedAt":"2026-%02d-%02d"}',
    id, n % users, statuses[(n + k + 1) % 4 + 1], items[n % 8 + 1], 5 + (n * 7919 % 50000) / 100,
    1 + n % 12, 1 + n % 28)
  k = k + 1
  return wrk.format("PUT", "/v1/collections/orders/records/" .. id,
                    {["Content-Type"] = "application/json", ["Authorization"] = authorization}, body)
end
function response(status, headers, body)
  if status ~= 200 and status ~= 201 then
    io.stderr:write("unexpected status " .. status .. ": " .. body .. "\n")
    wrk.thread:stop()
  end
end
