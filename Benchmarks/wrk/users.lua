-- GET a random "path<TAB>Authorization value" line from a file, sending that Authorization:
-- wrk ... -s users.lua URL -- FILE (each line a path and the bearer token of the user reading it).
local lines = {}
function init(args)
  for line in io.lines(args[1]) do
    local path, authorization = line:match("^([^\t]+)\t(.+)$")
    lines[#lines + 1] = { path, authorization }
  end
  math.randomseed(os.time() + #lines)
end
function request()
  local line = lines[math.random(#lines)]
  return wrk.format("GET", line[1], { ["Authorization"] = line[2] })
end
