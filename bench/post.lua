-- wrk script: each connection posts the update for a change of h, cycling through h and seed.
-- The bodies are read from the file named by the BODIES environment variable, one JSON per line.
local bodies = {}
for line in io.lines(os.getenv("BODIES")) do bodies[#bodies + 1] = line end
local counter = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept-Encoding"] = "br, gzip"

request = function()
  counter = counter + 1
  return wrk.format(nil, "/_dash-update-component", nil, bodies[(counter % #bodies) + 1])
end

done = function(summary, latency, requests)
  io.write(string.format("RESULT requests=%d seconds=%.2f errors=%d non2xx=%d p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f\n",
    summary.requests, summary.duration / 1e6,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status, latency:percentile(50) / 1e3, latency:percentile(90) / 1e3, latency:percentile(99) / 1e3))
end
