// The real process, as Kubernetes runs it: `node dist/main.js`, signalled, its log read.
// It is compiled into a directory of its own, so that the builds other test files run at the same time
// cannot rewrite dist/ under it.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Loose } from "../support/database.js";
import { FIXTURE_CREDENTIALS_KEY, fixtures } from "../support/fixtures.js";

const ROOT = new URL("../../", import.meta.url).pathname;
let dir = "";

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "dbhooks-process-"));
  const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
  const build = spawnSync(
    process.execPath,
    [tsc, "-p", "tsconfig.build.json", "--outDir", join(dir, "dist"), "--sourceMap", "false"],
    { cwd: ROOT, encoding: "utf8" },
  );
  expect(build.status, build.stdout + build.stderr).toBe(0);
  // What the image holds next to dist/: the CRD it reads at start, and its dependencies.
  mkdirSync(join(dir, "manifests"));
  cpSync(join(ROOT, "manifests/crds"), join(dir, "manifests/crds"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Running {
  readonly child: ChildProcess;
  readonly port: number;
  /** stdout and stderr so far, line by line. */
  readonly output: string[];
  readonly exited: Promise<number | null>;
}

async function start(env: Record<string, string>): Promise<Running> {
  const child = spawn(process.execPath, [join(dir, "dist/main.js")], {
    env: {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      DBHOOKS_CREDENTIALS_KEY: FIXTURE_CREDENTIALS_KEY,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const exited = once(child, "exit").then(([code]) => code as number | null);
  child.stderr?.on("data", (chunk: Buffer) => output.push(...chunk.toString().split("\n").filter(Boolean)));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      for (const line of chunk.toString().split("\n").filter(Boolean)) {
        output.push(line);
        const parsed = JSON.parse(line) as { msg?: string; port?: number };
        if (parsed.msg === "dbhooks listening" && parsed.port) resolve(parsed.port);
      }
    });
    void exited.then((code) => reject(new Error(`exited with ${code}: ${output.join("\n")}`)));
  });
  return { child, port, output, exited };
}

async function post(port: number, path: string, body: string, type = "application/json") {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: "POST",
    headers: { "Content-Type": type },
    body,
  });
  return { status: response.status, body: (await response.json()) as Loose };
}

/** Whether anything accepts connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** A hook request sent in two halves: the second only when `finish` is called. */
function slowRequest(port: number, body: string) {
  let finish = () => {};
  const finishing = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/database/sync",
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.write(body.slice(0, 100));
    void finishing.then(() => req.end(body.slice(100)));
  });
  return { answer, finish: () => finish() };
}

const single = fixtures().find((f) => f.name === "postgresql-single");

describe("SIGTERM", () => {
  it("turns /readyz 503, lets the request in flight finish, and exits 0 well before the deadline", async () => {
    const server = await start({
      LOG_LEVEL: "info",
      DBHOOKS_SHUTDOWN_DELAY_SECONDS: "1",
      DBHOOKS_SHUTDOWN_TIMEOUT_SECONDS: "20",
    });
    expect((await fetch(`http://127.0.0.1:${server.port}/readyz`)).status).toBe(200);
    const inFlight = slowRequest(server.port, single?.requestText ?? "");
    await new Promise((resolve) => setTimeout(resolve, 100));
    server.child.kill("SIGTERM");

    await until(async () => (await fetch(`http://127.0.0.1:${server.port}/readyz`)).status === 503);
    expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200);
    // After the delay the listener closes, with the request still in flight.
    await until(async () => !(await listening(server.port)));
    expect(server.child.exitCode).toBeNull();

    inFlight.finish();
    const answer = await inFlight.answer;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).status.phase).toBe("Pending");
    // 0 is the graceful path; the deadline's forced exit is 1.
    expect(await server.exited).toBe(0);
    expect(server.output.join("\n")).toContain("all connections closed");
  }, 30_000);

  it("exits 1 at the deadline when a request never finishes", async () => {
    const server = await start({
      LOG_LEVEL: "info",
      DBHOOKS_SHUTDOWN_DELAY_SECONDS: "0",
      DBHOOKS_SHUTDOWN_TIMEOUT_SECONDS: "1",
    });
    const stuck = slowRequest(server.port, single?.requestText ?? "");
    stuck.answer.catch(() => {}); // the process goes away under it
    await new Promise((resolve) => setTimeout(resolve, 100));
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(1);
    expect(server.output.join("\n")).toContain("shutdown deadline passed");
  }, 30_000);
});

describe("the log of the real process", () => {
  it("never holds a Secret's data, whatever the request and at any level", async () => {
    const server = await start({ LOG_LEVEL: "trace" });
    const withSecret = fixtures().filter((f) => f.request.children["Secret.v1"]);
    const values = withSecret.flatMap((f) =>
      Object.values(f.request.children["Secret.v1"] ?? {}).flatMap((s) =>
        Object.values((s as Loose).data as Record<string, string>),
      ),
    );
    for (const fixture of withSecret) {
      expect((await post(server.port, `/database/${fixture.hook}`, fixture.requestText)).status).toBe(200);
      // The same request refused: truncated, under the wrong type, and with an invalid spec.
      expect((await post(server.port, "/database/sync", fixture.requestText.slice(0, -20))).status).toBe(400);
      expect((await post(server.port, "/database/sync", fixture.requestText, "text/plain")).status).toBe(415);
      const invalid = { ...fixture.request, parent: { ...fixture.request.parent, spec: { replicas: 0 } } };
      expect((await post(server.port, "/database/sync", JSON.stringify(invalid))).body.status.phase).toBe(
        "Failed",
      );
    }
    server.child.kill("SIGTERM");
    await server.exited;
    const log = server.output.join("\n");
    expect(log).toContain('"name":"inventory"');
    // Every generated secret value (not "app" or a port, which are no secrets and appear in names).
    const secrets = values.filter((v) => Buffer.from(v, "base64").length >= 16);
    expect(secrets.length).toBeGreaterThan(10);
    for (const value of secrets) {
      expect(log).not.toContain(value);
      expect(log).not.toContain(Buffer.from(value, "base64").toString());
    }
  }, 30_000);
});
