// npm run bench: dbhooks over loopback against the ceiling for any Node hook (bench/ceiling.mjs), for three
// payloads, plus the pure sync function alone. Not a test: it prints figures and asserts nothing about time.
//
// Per payload, a fresh dbhooks process (node dist/main.js, as in production but LOG_LEVEL=warn) and a fresh
// ceiling process; then ROUNDS rounds, each running dbhooks and the ceiling in alternating order:
//   - saturation: 32 connections as fast as they go -> requests/s (the ratio dbhooks / ceiling);
//   - steady: 500 requests/s over 8 connections (about what Metacontroller's workers send) -> p50/p99,
//     corrected for coordinated omission by autocannon.
// Figures are medians over the rounds. Peak RSS is the kernel's high-water mark (VmHWM) of each process.
// Environment: BENCH_SECONDS (per run, default 4), BENCH_ROUNDS (default 2), BENCH_PAYLOADS (e.g. "realistic"),
// BENCH_NODE_FLAGS (node flags for both servers; default: the ones dbhooks runs with, from package.json's
// start script, which the image sets through NODE_OPTIONS too).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { CREDENTIALS_KEY, payloads } from "./payloads.mjs";

const ROOT = new URL("../", import.meta.url).pathname;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const ONLY = process.env.BENCH_PAYLOADS?.split(",");
const START = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts.start;
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? START.match(/^node ((?:--\S+ )*)/)?.[1] ?? "")
  .split(" ")
  .filter(Boolean);
const SATURATION_CONNECTIONS = 32;
const STEADY_RATE = 500;
const STEADY_CONNECTIONS = 8;
const CLOCK_TICKS = 100; // USER_HZ: /proc reports CPU time in 1/100 s on every Linux architecture
const TARGETS = { ratio: 0.6, p99FloorMs: 10, rssMb: 120, callsPerSecond: 20_000 };

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const log = (line) => process.stderr.write(`${line}\n`);

async function freePort() {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address();
  server.close();
  await once(server, "close");
  return port;
}

async function waitFor(url, child) {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`${url}: the server exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${url}: no answer after 10 s`);
}

function collect(child) {
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output += chunk;
  });
  return () => output;
}

async function startDbhooks() {
  const port = await freePort();
  const child = spawn(process.execPath, [...NODE_FLAGS, join(ROOT, "dist/main.js")], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      DBHOOKS_CREDENTIALS_KEY: CREDENTIALS_KEY,
      DBHOOKS_SHUTDOWN_DELAY_SECONDS: "0",
      DBHOOKS_SHUTDOWN_TIMEOUT_SECONDS: "5",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = collect(child);
  await waitFor(`http://127.0.0.1:${port}/healthz`, child);
  return { name: "dbhooks", child, output, url: (_payload) => `http://127.0.0.1:${port}/database/sync` };
}

async function startCeiling(answersFile) {
  const child = spawn(process.execPath, [...NODE_FLAGS, join(ROOT, "bench/ceiling.mjs"), answersFile], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = collect(child);
  const [line] = await once(child.stdout, "data");
  const { port } = JSON.parse(String(line));
  return { name: "ceiling", child, output, url: (payload) => `http://127.0.0.1:${port}/${payload.name}` };
}

async function stop(server) {
  if (server.child.exitCode !== null) return;
  const exited = once(server.child, "exit");
  server.child.kill("SIGTERM");
  await exited;
}

/** Peak resident memory in MB (the kernel's high-water mark), or NaN where /proc is not there. */
function peakRssMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]);
    return kb / 1024;
  } catch {
    return Number.NaN;
  }
}

/** CPU time (user + system) the process has used so far, in microseconds; NaN where /proc is not there. */
function cpuMicros(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

/** One request first: both servers must answer 200, and dbhooks exactly what the sync function answers. */
async function check(server, payload) {
  const response = await fetch(server.url(payload), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: payload.body,
  });
  const body = await response.json();
  if (response.status !== 200) throw new Error(`${server.name} ${payload.name}: HTTP ${response.status}`);
  if (JSON.stringify(body.children) !== JSON.stringify(payload.answer.children)) {
    throw new Error(`${server.name} ${payload.name}: the children differ from the sync function's`);
  }
}

async function load(server, payload, options) {
  const cpuBefore = cpuMicros(server.child.pid);
  const result = await autocannon({
    url: server.url(payload),
    method: "POST",
    headers: { "content-type": "application/json" },
    body: payload.body,
    duration: options.seconds ?? SECONDS,
    ...options,
  });
  return {
    rps: result.requests.total / result.duration,
    cpuPerRequest: (cpuMicros(server.child.pid) - cpuBefore) / result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    bad: result.non2xx + result.errors + result.timeouts,
  };
}

const saturate = (server, payload, seconds) =>
  load(server, payload, { connections: SATURATION_CONNECTIONS, ...(seconds ? { seconds } : {}) });
const steady = (server, payload) =>
  load(server, payload, { connections: STEADY_CONNECTIONS, overallRate: STEADY_RATE });

async function benchPayload(payload, answersFile) {
  const dbhooks = await startDbhooks();
  const ceiling = await startCeiling(answersFile);
  const runs = { dbhooks: { saturated: [], steady: [] }, ceiling: { saturated: [], steady: [] } };
  try {
    for (const server of [dbhooks, ceiling]) {
      await check(server, payload);
      await saturate(server, payload, 1); // JIT warm-up, not counted
    }
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [dbhooks, ceiling] : [ceiling, dbhooks];
      for (const server of order) runs[server.name].saturated.push(await saturate(server, payload));
      for (const server of order) runs[server.name].steady.push(await steady(server, payload));
      log(`  ${payload.name} round ${round + 1}/${ROUNDS} done`);
    }
    return {
      runs,
      rssMb: { dbhooks: peakRssMb(dbhooks.child.pid), ceiling: peakRssMb(ceiling.child.pid) },
    };
  } catch (error) {
    log(`dbhooks output:\n${dbhooks.output()}\nceiling output:\n${ceiling.output()}`);
    throw error;
  } finally {
    await stop(dbhooks);
    await stop(ceiling);
  }
}

function summarize({ runs, rssMb }) {
  const of = (name, phase, field) => median(runs[name][phase].map((r) => r[field]));
  const bad = (name) => [...runs[name].saturated, ...runs[name].steady].reduce((sum, r) => sum + r.bad, 0);
  return {
    rps: { dbhooks: of("dbhooks", "saturated", "rps"), ceiling: of("ceiling", "saturated", "rps") },
    cpu: {
      dbhooks: of("dbhooks", "saturated", "cpuPerRequest"),
      ceiling: of("ceiling", "saturated", "cpuPerRequest"),
    },
    p50: { dbhooks: of("dbhooks", "steady", "p50"), ceiling: of("ceiling", "steady", "p50") },
    p99: { dbhooks: of("dbhooks", "steady", "p99"), ceiling: of("ceiling", "steady", "p99") },
    steadyRps: of("dbhooks", "steady", "rps"),
    bad: { dbhooks: bad("dbhooks"), ceiling: bad("ceiling") },
    rssMb,
    raw: Object.fromEntries(
      Object.entries(runs).map(([name, phases]) => [
        name,
        {
          saturatedRps: phases.saturated.map((r) => Math.round(r.rps)),
          cpuMicrosPerRequest: phases.saturated.map((r) => Math.round(r.cpuPerRequest)),
          steadyP99Ms: phases.steady.map((r) => r.p99),
        },
      ]),
    ),
  };
}

const kb = (text) => `${Math.round(Buffer.byteLength(text) / 1024)} KB`;
const fixed = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");

function tables(rows, micro) {
  const saturated = [
    `Saturation (${SATURATION_CONNECTIONS} connections):`,
    "",
    "| payload | request | dbhooks req/s | ceiling req/s | ratio | dbhooks CPU µs/req | ceiling CPU µs/req |",
    "|---|---|---|---|---|---|---|",
    ...rows.map(
      ({ payload, s }) =>
        `| ${payload.name} | ${kb(payload.body)} | ${fixed(s.rps.dbhooks)} | ${fixed(s.rps.ceiling)} | ${fixed(s.rps.dbhooks / s.rps.ceiling, 2)} | ${fixed(s.cpu.dbhooks)} | ${fixed(s.cpu.ceiling)} |`,
    ),
  ];
  const steadyRows = rows.map(
    ({ payload, s }) =>
      `| ${payload.name} | ${s.p50.dbhooks} / ${s.p99.dbhooks} | ${s.p50.ceiling} / ${s.p99.ceiling} | ${fixed(s.steadyRps)} | ${s.bad.dbhooks} | ${fixed(s.rssMb.dbhooks)} (${fixed(s.rssMb.ceiling)}) | ${micro[payload.name]?.callsPerSecond ?? "n/a"} (${micro[payload.name]?.callsPerCpuSecond ?? "n/a"} per CPU s) |`,
  );
  const steady = [
    `Steady ${STEADY_RATE} req/s (${STEADY_CONNECTIONS} connections), peak RSS over the whole run, the pure sync function:`,
    "",
    "| payload | dbhooks p50 / p99 ms | ceiling p50 / p99 ms | dbhooks req/s achieved | dbhooks non-2xx | peak RSS MB dbhooks (ceiling) | sync calls/s, 1 core |",
    "|---|---|---|---|---|---|---|",
    ...steadyRows,
  ];
  return [...saturated, "", ...steady].join("\n");
}

function verdicts(row, micro) {
  if (!row) return [];
  const { s } = row;
  const ratio = s.rps.dbhooks / s.rps.ceiling;
  const p99Limit = Math.max(TARGETS.p99FloorMs, 2 * s.p99.ceiling);
  const calls = micro.realistic?.callsPerSecond ?? 0;
  const cpuCalls = micro.realistic?.callsPerCpuSecond ?? 0;
  const verdict = (ok, text) => `${ok ? "met   " : "MISSED"}  ${text}`;
  return [
    verdict(ratio >= TARGETS.ratio, `throughput ratio ${ratio.toFixed(2)} >= ${TARGETS.ratio}`),
    verdict(
      s.p99.dbhooks <= p99Limit,
      `p99 at ${STEADY_RATE}/s ${s.p99.dbhooks} ms <= max(${TARGETS.p99FloorMs}, 2 x ${s.p99.ceiling}) = ${p99Limit} ms (achieved ${s.steadyRps.toFixed(0)} req/s)`,
    ),
    verdict(s.bad.dbhooks === 0, `non-2xx, errors and timeouts: ${s.bad.dbhooks}`),
    verdict(s.rssMb.dbhooks <= TARGETS.rssMb, `peak RSS ${fixed(s.rssMb.dbhooks)} MB <= ${TARGETS.rssMb} MB`),
    verdict(
      calls >= TARGETS.callsPerSecond,
      `pure sync ${calls} calls/s >= ${TARGETS.callsPerSecond} (${cpuCalls} per second of CPU time)`,
    ),
  ];
}

async function main() {
  const selected = payloads().filter((p) => !ONLY || ONLY.includes(p.name));
  log(
    `bench: ${selected.map((p) => `${p.name} (${kb(p.body)})`).join(", ")}; ${ROUNDS} rounds of ${SECONDS} s`,
  );
  const micro = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, "bench/micro.mjs")], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`micro: ${code}`))));
  });
  log("  pure sync function done");
  const dir = mkdtempSync(join(tmpdir(), "dbhooks-bench-"));
  const answersFile = join(dir, "answers.json");
  writeFileSync(
    answersFile,
    JSON.stringify(Object.fromEntries(selected.map((p) => [`/${p.name}`, p.answer]))),
  );
  const rows = [];
  try {
    for (const payload of selected)
      rows.push({ payload, s: summarize(await benchPayload(payload, answersFile)) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const realistic = rows.find((r) => r.payload.name === "realistic");
  const out = [
    `node ${process.version}${NODE_FLAGS.length ? ` ${NODE_FLAGS.join(" ")}` : ""}, ${ROUNDS} alternating rounds of ${SECONDS} s, medians; saturation: ${SATURATION_CONNECTIONS} connections; steady: ${STEADY_RATE} req/s over ${STEADY_CONNECTIONS} connections`,
    "",
    tables(rows, micro),
    "",
    "realistic payload targets:",
    ...verdicts(realistic, micro).map((v) => `  ${v}`),
    "",
    "raw runs:",
    ...rows.map((r) => `  ${r.payload.name}: ${JSON.stringify(r.s.raw)}`),
    `  sync calls/s: ${JSON.stringify(micro)}`,
  ];
  process.stdout.write(`${out.join("\n")}\n`);
}

await main();
