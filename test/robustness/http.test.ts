// Whatever arrives at whichever route, the server answers: never a 5xx, never a crash, never a hang.
// A real listening server (the one main builds) and raw node:http requests, so bytes arrive as sent.
import { request as httpRequest, type OutgoingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hookRoutes, webhookRoutes } from "../../src/http/app.js";
import { createHttpServer } from "../../src/http/server.js";
import { loadResources } from "../../src/resources/registry.js";
import { testApp } from "../support/app.js";
import type { Loose } from "../support/database.js";
import { fixtures } from "../support/fixtures.js";

const RUNS = { numRuns: 150 };
const ROUTES = [
  ...hookRoutes(loadResources()),
  ...webhookRoutes(loadResources()),
  "/DATABASE/SYNC?x=1",
  "/healthz",
  "/readyz",
  "/metrics",
  "/nope",
  "/database/sync/",
];
const METHODS = ["POST", "GET", "PUT", "DELETE", "PATCH", "OPTIONS"];

let server: Server;
let port: number;

beforeAll(async () => {
  server = createHttpServer(testApp().app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

interface Sent {
  readonly method?: string;
  readonly path: string;
  readonly headers?: OutgoingHttpHeaders;
  readonly body?: string | Uint8Array;
}

/** One request; rejects if no answer comes within 10 s (a hang), or if the server drops the socket. */
function send({
  method = "POST",
  path,
  headers = {},
  body,
}: Sent): Promise<{ status: number; text: string }> {
  // An explicit length: without one, node:http sends a GET's body unframed, which is not HTTP.
  const length = body === undefined ? {} : { "Content-Length": Buffer.byteLength(body) };
  const options = {
    host: "127.0.0.1",
    port,
    method,
    path,
    headers: { ...length, ...headers },
    timeout: 10_000,
  };
  return new Promise((resolve, reject) => {
    const req = httpRequest(options, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer within 10 s`)));
    req.on("error", reject);
    req.end(body);
  });
}

/** Every answer: below 500, JSON (or Prometheus text), and no stack trace. */
function expectSane(answer: { status: number; text: string }, path: string) {
  expect(answer.status).toBeGreaterThanOrEqual(200);
  expect(answer.status).toBeLessThan(500);
  expect(answer.text).not.toMatch(/at .*\.(js|ts):\d+/);
  if (path !== "/metrics" || answer.status !== 200) expect(() => JSON.parse(answer.text)).not.toThrow();
}

/** Keys a merge-happy parser could be tricked with, among ordinary ones. */
const key = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  fc.constantFrom(
    "__proto__",
    "constructor",
    "prototype",
    "toString",
    "hasOwnProperty",
    "parent",
    "children",
  ),
);

/** JSON text built by hand, so that a "__proto__" key really is in the bytes sent. */
const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom("null", "true", "false", "0", "-1.5e300", '""'),
    fc.double().map((n) => JSON.stringify(n)),
    fc.string().map((s) => JSON.stringify(s)),
    fc.array(tie("value"), { maxLength: 5 }).map((items) => `[${items.join(",")}]`),
    fc
      .array(fc.tuple(key, tie("value")), { maxLength: 5 })
      .map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`),
  ),
})).value;

describe("arbitrary input at every route", () => {
  it("arbitrary JSON, any method: never a 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ROUTES),
        fc.constantFrom(...METHODS),
        jsonText,
        async (path, method, body) => {
          expectSane(
            await send({ method, path, body, headers: { "Content-Type": "application/json" } }),
            path,
          );
        },
      ),
      RUNS,
    );
  });

  it("arbitrary bytes under any content type and encoding: never a 5xx", async () => {
    const contentType = fc.constantFrom(
      "application/json",
      "application/json; charset=utf-8",
      "application/json; charset=latin1",
      "APPLICATION/JSON",
      "application/merge-patch+json",
      "text/plain",
      "",
    );
    const encoding = fc.constantFrom(undefined, "identity", "gzip", "br", "x-nonsense");
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ROUTES),
        fc.uint8Array({ maxLength: 4096 }),
        contentType,
        encoding,
        async (path, body, type, enc) => {
          const headers = {
            ...(type ? { "Content-Type": type } : {}),
            ...(enc ? { "Content-Encoding": enc } : {}),
          };
          expectSane(await send({ path, headers, body }), path);
        },
      ),
      RUNS,
    );
  });
});

/** Every path to a value in a JSON tree, e.g. ["children", "Service.v1", "orders-db-primary", "spec"]. */
function paths(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value !== "object" || value === null) return [prefix];
  return [prefix, ...Object.entries(value).flatMap(([k, v]) => paths(v, [...prefix, k]))];
}

function replaced(value: Loose, path: string[], by: unknown): Loose {
  if (path.length === 0) return by as Loose;
  const [head = "", ...rest] = path;
  const copy: Loose = Array.isArray(value) ? [...value] : { ...value };
  copy[head] = replaced(value[head], rest, by);
  return copy;
}

describe("a real hook request with one part replaced by anything", () => {
  // Every fixture of every resource, and every path to a value in it.
  const targets = fixtures().flatMap((fixture) => paths(fixture.request).map((path) => ({ fixture, path })));

  it("answers 200 or a 4xx; an answer Failed for an invalid spec keeps every observed child", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...targets), jsonText, async ({ fixture, path }, text) => {
        const route = `/${fixture.resource}/${fixture.hook}`;
        const body = JSON.stringify(replaced(fixture.request, path, JSON.parse(text)));
        const answer = await send({ path: route, body, headers: { "Content-Type": "application/json" } });
        expectSane(answer, route);
        const parsed = JSON.parse(answer.text);
        if (answer.status !== 200 || parsed.status?.conditions?.[0]?.reason !== "InvalidSpec") return;
        const request = JSON.parse(body);
        const observed = Object.values(request.children ?? {})
          .flatMap((group) => Object.values(group as Loose))
          .filter((o: Loose) => typeof o?.metadata?.name === "string");
        expect(parsed.children).toHaveLength(observed.length);
      }),
      { numRuns: 300 },
    );
  });

  it("leaves Object.prototype as it was", () => {
    expect(Object.keys(Object.prototype)).toEqual([]);
    expect(({} as Loose).polluted).toBeUndefined();
  });
});
