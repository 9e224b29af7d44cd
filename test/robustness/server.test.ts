// The server around the hooks: slow clients are cut off, a client that leaves does no harm, and an error in
// a handler is a logged 500 that leaves the server serving.
import { request as httpRequest, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import { Writable } from "node:stream";
import { pino } from "pino";
import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { type App, createApp } from "../../src/http/app.js";
import { createMetrics } from "../../src/http/metrics.js";
import { createHttpServer } from "../../src/http/server.js";
import type { Hook, Resource } from "../../src/resources/resource.js";
import { testApp } from "../support/app.js";
import { database } from "../support/database.js";
import { FIXTURE_CONTEXT, fixtures } from "../support/fixtures.js";

const TIMEOUTS = { headersMs: 300, requestMs: 600, keepAliveMs: 1_000, checkIntervalMs: 100 };
const validRequest = fixtures().find((f) => f.name === "postgresql-single")?.requestText ?? "";

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen(app: App): Promise<number> {
  const server = createHttpServer(app, TIMEOUTS);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || !address) throw new Error("not listening");
  return address.port;
}

/** Everything the server sends until it closes the connection. */
function untilClosed(socket: Socket): Promise<string> {
  let received = "";
  socket.on("data", (chunk) => {
    received += chunk;
  });
  return new Promise((resolve) => socket.on("close", () => resolve(received)));
}

describe("slow clients", () => {
  it("cuts off a client that never finishes its headers (408, then closed)", async () => {
    const port = await listen(testApp().app);
    const socket = connect(port, "127.0.0.1");
    socket.write("POST /database/sync HTTP/1.1\r\nHost: dbhooks\r\nContent-Type: applic");
    expect(await untilClosed(socket)).toMatch(/^HTTP\/1\.1 408/);
  });

  it("cuts off a client that sends its body a byte at a time, for ever", async () => {
    const port = await listen(testApp().app);
    const socket = connect(port, "127.0.0.1");
    socket.write(
      `POST /database/sync HTTP/1.1\r\nHost: dbhooks\r\nContent-Type: application/json\r\nContent-Length: ${validRequest.length}\r\n\r\n`,
    );
    let sent = 0;
    const drip = setInterval(() => {
      if (!socket.destroyed) socket.write(validRequest.charAt(sent++));
    }, 20);
    const received = await untilClosed(socket);
    clearInterval(drip);
    expect(sent).toBeLessThan(validRequest.length);
    expect(received).toMatch(/^HTTP\/1\.1 408/);
  });

  it("answers 413 to a chunked body that outgrows the limit, and keeps serving", async () => {
    const port = await listen(testApp({ bodyLimitBytes: 2048 }).app);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: "/database/sync",
          headers: { "Content-Type": "application/json", "Transfer-Encoding": "chunked" },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.write(`{"parent":{"metadata":{"name":"x"}},"pad":"`);
      for (let i = 0; i < 8; i++) req.write("x".repeat(1024));
      req.end('"}');
    });
    expect(status).toBe(413);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });

  it("shrugs off a client that leaves in the middle of its body", async () => {
    const { app, lines } = testApp();
    const port = await listen(app);
    const socket = connect(port, "127.0.0.1");
    socket.write(
      `POST /database/sync HTTP/1.1\r\nHost: dbhooks\r\nContent-Type: application/json\r\nContent-Length: ${validRequest.length}\r\n\r\n${validRequest.slice(0, 100)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    const response = await fetch(`http://127.0.0.1:${port}/database/sync`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: validRequest,
    });
    expect(response.status).toBe(200);
    expect(lines.filter((l) => JSON.parse(l).level >= 50)).toEqual([]);
  });
});

/** The app with one resource whose hooks do what the test says, and its log lines. */
function appWith(sync: Hook, finalize?: Hook) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      callback();
    },
  });
  const resource: Resource = {
    name: "database",
    crd: database.crd,
    childKinds: database.childKinds,
    sync,
    ...(finalize ? { finalize } : {}),
  };
  const app = createApp({
    resources: [resource],
    logger: pino({ level: "info" }, sink),
    metrics: createMetrics(),
    bodyLimitBytes: 1 << 20,
    context: FIXTURE_CONTEXT,
  });
  return { app, lines };
}

describe("an error in a handler", () => {
  const post = (app: App, path = "/database/sync") =>
    request(app).post(path).set("Content-Type", "application/json").send(validRequest);

  it("is logged with its stack and answered 500 without detail, and the server keeps serving", async () => {
    let calls = 0;
    const { app, lines } = appWith(() => {
      calls++;
      throw new Error("the hook broke: s3cr3t-detail");
    });
    for (let i = 0; i < 2; i++) {
      const response = await post(app);
      expect(response.status).toBe(500);
      expect(response.body).toEqual({ error: "internal error" });
      expect(response.text).not.toContain("s3cr3t-detail");
    }
    expect(calls).toBe(2);
    const errors = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 50);
    expect(errors).toHaveLength(2);
    expect(errors[0].err.stack).toContain("the hook broke");
    expect((await request(app).get("/healthz")).status).toBe(200);
  });

  it.each<[string, Hook]>([
    [
      "a thrown string",
      () => {
        throw "not an Error";
      },
    ],
    [
      "a RangeError on a shallow request (a bug, not the client's doing)",
      () => {
        throw new RangeError("Invalid array length");
      },
    ],
    ["an answer JSON cannot encode", () => ({ status: { big: 1n }, children: [] })],
  ])("%s is a 500 too", async (_case, hook) => {
    const { app, lines } = appWith(hook, hook);
    for (const path of ["/database/sync", "/database/finalize"]) {
      const response = await post(app, path);
      expect(response.status).toBe(500);
      expect(response.body).toEqual({ error: "internal error" });
    }
    expect(lines.filter((l) => JSON.parse(l).level === 50)).toHaveLength(2);
  });

  it("is counted in the metrics with its code", async () => {
    const { app } = appWith(() => {
      throw new Error("boom");
    });
    await post(app);
    const metrics = await request(app).get("/metrics");
    expect(metrics.text).toMatch(
      /dbhooks_hook_requests_total\{resource="database",hook="sync",code="500"\} 1/,
    );
  });
});
