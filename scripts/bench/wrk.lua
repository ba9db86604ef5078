-- Load for one benchmark case. Arguments (after --): the file of request bodies
-- (one JSON body per line) and the bearer token. Each request is a POST /graphql
-- with a body drawn at random from the file (every one of them was checked against
-- the reference before the run). Every response is checked cheaply: status 200, a
-- body that starts with {"data": and holds no "errors" member; failures are
-- counted as "bad". Requests sent are counted too: the ones still in flight when
-- the run stops reach the database all the same. done() prints one JSON line the bench reads.

local threads = {}

function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  bodies = {}
  for line in io.lines(args[1]) do
    if #line > 0 then table.insert(bodies, line) end
  end
  headers = {
    ["Content-Type"] = "application/json",
    ["Accept"] = "application/json",
    ["Authorization"] = "Bearer " .. args[2],
  }
  math.randomseed(os.time() * 1000 + id)
  bad = 0
  sent = 0
  if #bodies == 1 then
    fixed = wrk.format("POST", "/graphql", headers, bodies[1])
  end
end

function request()
  sent = sent + 1
  if fixed then return fixed end
  return wrk.format("POST", "/graphql", headers, bodies[math.random(#bodies)])
end

function response(status, headers, body)
  if status ~= 200 or body:sub(1, 8) ~= '{"data":' or body:find('"errors"', 1, true) then
    bad = bad + 1
  end
end

function done(summary, latency, requests)
  local total_bad, total_sent = 0, 0
  for _, thread in ipairs(threads) do
    total_bad = total_bad + (thread:get("bad") or 0)
    total_sent = total_sent + (thread:get("sent") or 0)
  end
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,' ..
    '"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"bad":%d,"sent":%d}\n',
    summary.requests, summary.duration, summary.bytes,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    e.connect, e.read, e.write, e.status, e.timeout, total_bad, total_sent))
end
