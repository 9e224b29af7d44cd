// The pure sync function alone, on one core: calls per second for each payload, the request already parsed.
// Usage: node bench/micro.mjs [seconds per round, default 1] [rounds, default 3]. Prints one JSON line:
// per payload, the median calls per wall-clock second, and per second of CPU time (process.cpuUsage),
// which a busy neighbour on the machine disturbs less.
import { CONTEXT, payloads } from "./payloads.mjs";

const seconds = Number(process.argv[2] ?? 1);
const rounds = Number(process.argv[3] ?? 3);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function measure(sync, request) {
  let calls = 0;
  let sink = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const until = started + seconds * 1000;
  while (performance.now() < until) {
    // 50 calls between clock reads: the clock must not be what is measured.
    for (let i = 0; i < 50; i++) sink += sync(request, CONTEXT).children.length;
    calls += 50;
  }
  const used = process.cpuUsage(cpu);
  if (sink === 0) throw new Error("sync returned no children");
  return {
    wall: calls / ((performance.now() - started) / 1000),
    cpu: calls / ((used.user + used.system) / 1e6),
  };
}

const all = payloads();
const results = Object.fromEntries(all.map((p) => [p.name, []]));
for (const { request, database } of all) {
  for (let i = 0; i < 3000; i++) database.sync(request, CONTEXT); // warm up the JIT
}
// Rounds alternate over the payloads, so that a noisy neighbour spreads over all of them.
for (let round = 0; round < rounds; round++) {
  for (const { name, request, database } of all) results[name].push(measure(database.sync, request));
}
const out = Object.fromEntries(
  Object.entries(results).map(([name, runs]) => [
    name,
    {
      callsPerSecond: Math.round(median(runs.map((r) => r.wall))),
      callsPerCpuSecond: Math.round(median(runs.map((r) => r.cpu))),
      runs: runs.map((r) => Math.round(r.wall)),
    },
  ]),
);
process.stdout.write(`${JSON.stringify(out)}\n`);
