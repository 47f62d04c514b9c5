-- The soak mix over a fixed set of people p-0001 … p-RECORDS (Benchmarks/soak.sh):
--   10% writes, 10% tag look-ups (tags 0 … TAGS-1), 10% `changes?since=1`, 70% first pages.
-- MODE `overwrite`: every write is a PUT of an existing id.
-- MODE `churn`: writes alternate DELETE of a present id and PUT re-inserting one deleted at least
-- 100 deletes earlier, so ids come and go. An id is deleted only when the write that put it is
-- long committed (100 writes ago): requests on different connections may be served in either
-- order, so a DELETE sent just after the PUT of its id could come first and answer 404 (it did,
-- a few times in ten minutes, before re-inserted ids waited).
--   wrk ... -s soak.lua URL -- MODE RECORDS TAGS
local mode, records, tags = "overwrite", 2000, 1000
local teams = {"Design", "Engineering", "Marketing", "Sales", "Support", "Finance", "Research"}
local present, deleted, head, tail = {}, {}, 1, 0
-- Re-inserted ids not yet deletable, oldest first: {id number, write count when put}.
local settling, shead, stail = {}, 1, 0
local writes = 0

function init(args)
  mode = args[1] or mode
  records = tonumber(args[2]) or records
  tags = tonumber(args[3]) or tags
  for n = 1, records do present[n] = true end
  math.randomseed(os.time())
end

local function id(n) return string.format("p-%04d", n) end

local function put(n)
  local body = string.format('{"name":"Soak %d","team":"%s","kind":"person","email":"s@example.com","salary":%d}',
    math.random(1000000), teams[math.random(#teams)], math.random(50000, 200000))
  return wrk.format("PUT", "/v1/collections/people/records/" .. id(n), {["Content-Type"] = "application/json"}, body)
end

local function write()
  if mode ~= "churn" then return put(math.random(records)) end
  writes = writes + 1
  while shead <= stail and writes - settling[shead][2] >= 100 do
    present[settling[shead][1]] = true
    settling[shead] = nil
    shead = shead + 1
  end
  if writes % 2 == 0 and tail - head + 1 > 100 then
    local n = deleted[head]
    deleted[head] = nil
    head = head + 1
    stail = stail + 1
    settling[stail] = {n, writes}
    return put(n)
  end
  local n = math.random(records)
  while not present[n] do n = math.random(records) end
  present[n] = false
  tail = tail + 1
  deleted[tail] = n
  return wrk.format("DELETE", "/v1/collections/people/records/" .. id(n))
end

function request()
  local r = math.random(10)
  if r == 1 then return write() end
  if r == 2 then return wrk.format("GET", "/v1/lists/contacts/tags/" .. math.random(0, tags - 1)) end
  if r == 3 then return wrk.format("GET", "/v1/lists/contacts/changes?since=1") end
  return wrk.format("GET", "/v1/lists/contacts/rows")
end
