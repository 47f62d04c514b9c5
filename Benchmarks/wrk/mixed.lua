-- Reads of random paths from a file and upserts of random people, WRITES in ten (default 1: 90%
-- reads, 10% writes; 0: the same reads alone): wrk ... -s mixed.lua URL -- FILE [WRITES]
local paths = {}
local writes = 1
local teams = {"Design", "Engineering", "Marketing", "Sales", "Support"}
function init(args)
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  if args[2] then writes = tonumber(args[2]) end
  math.randomseed(os.time() + #paths)
end
function request()
  if math.random(10) <= writes then
    -- Ids as scripts/generate-people.py writes them for 100,000 people (p-000001 … p-100000).
    local id = string.format("p-%06d", math.random(100000))
    local body = string.format('{"name":"Mixed %d","team":"%s","kind":"person","email":"m@example.com","salary":%d}',
      math.random(1000000), teams[math.random(#teams)], math.random(50000, 200000))
    return wrk.format("PUT", "/v1/collections/people/records/" .. id, {["Content-Type"] = "application/json"}, body)
  end
  return wrk.format("GET", paths[math.random(#paths)])
end
