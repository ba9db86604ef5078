-- Load for the tenant bench. Argument (after --): a file of requests, one a line, "<host>\t<token>\t<body>"
-- (host empty: the URL's own). Each request is a POST /graphql drawn at random from the file, with that
-- Host and bearer token, so the load spreads over the tenants as the file does. Responses are checked as
-- in wrk.lua; done() prints the same WRK_RESULT line.

local threads = {}

function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  requests = {}
  for line in io.lines(args[1]) do
    local host, token, body = line:match("^([^\t]*)\t([^\t]+)\t(.+)$")
    if body then
      local headers = {
        ["Content-Type"] = "application/json",
        ["Accept"] = "application/json",
        ["Authorization"] = "Bearer " .. token,
      }
      if #host > 0 then headers["Host"] = host end
      table.insert(requests, wrk.format("POST", "/graphql", headers, body))
    end
  end
  math.randomseed(os.time() * 1000 + id)
  bad = 0
  sent = 0
end

function request()
  sent = sent + 1
  return requests[math.random(#requests)]
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
