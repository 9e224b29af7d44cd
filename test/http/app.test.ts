// Real HTTP requests (supertest listens on an ephemeral port) against the app main builds.
import request from "supertest";
import { describe, expect, it } from "vitest";
import { hookRoutes } from "../../src/http/app.js";
import { loadResources } from "../../src/resources/registry.js";
import { testApp } from "../support/app.js";
import type { Loose } from "../support/database.js";
import { fixtures } from "../support/fixtures.js";

const { app, lines } = testApp();
const validRequest = fixtures().find((f) => f.name === "postgresql-single")?.requestText ?? "";

describe("every fixture over HTTP", () => {
  it.each(fixtures().map((f) => [`${f.resource}/${f.name}`, f] as const))(
    "%s answers its response.json",
    async (_name, fixture) => {
      const response = await request(app)
        .post(`/${fixture.resource}/${fixture.hook}`)
        .set("Content-Type", "application/json")
        .send(fixture.requestText);
      expect(response.status).toBe(200);
      expect(response.headers["content-type"]).toMatch(/^application\/json/);
      expect(`${JSON.stringify(response.body, null, 2)}\n`).toBe(fixture.responseText);
    },
  );
});

describe("routes", () => {
  it("serves a sync route per resource, and a finalize route where it has a finalize hook", () => {
    expect(hookRoutes(loadResources())).toEqual(["/database/sync", "/database/finalize", "/webservice/sync"]);
  });

  it("answers /healthz, /readyz and /metrics", async () => {
    expect((await request(app).get("/healthz")).status).toBe(200);
    expect((await request(app).get("/readyz")).status).toBe(200);
    await request(app).post("/database/sync").set("Content-Type", "application/json").send(validRequest);
    const metrics = await request(app).get("/metrics");
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(
      /dbhooks_hook_requests_total\{resource="database",hook="sync",code="200"\} \d+/,
    );
    expect(metrics.text).toContain("dbhooks_hook_duration_seconds_bucket");
  });

  it("answers /readyz 503 once shutdown began", async () => {
    const { app: stopping } = testApp({ isReady: () => false });
    const response = await request(stopping).get("/readyz");
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ error: "shutting down" });
  });

  it("answers 404 in JSON for an unknown route, 405 for the wrong method", async () => {
    const missing = await request(app).post("/databases/sync").send({});
    expect(missing.status).toBe(404);
    expect(missing.body.error).toContain("/databases/sync");
    const get = await request(app).get("/database/sync");
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe("POST");
  });
});

describe("bad requests get a 4xx with a JSON error and never a stack", () => {
  const post = (body: string | Buffer, type = "application/json") =>
    request(app).post("/database/sync").set("Content-Type", type).send(body);

  it.each([
    ["malformed JSON", '{"parent":', 400, "not valid JSON"],
    ["truncated request", validRequest.slice(0, 200), 400, "not valid JSON"],
    ["empty body", "", 400, "parent"],
    ["a JSON array", "[]", 400, "JSON object"],
    ["no parent", JSON.stringify({ children: {} }), 400, "parent"],
    ["parent without a name", JSON.stringify({ parent: { metadata: {} } }), 400, "parent.metadata.name"],
    [
      "children of the wrong shape",
      JSON.stringify({ parent: { metadata: { name: "x" } }, children: [] }),
      400,
      "children",
    ],
    [
      "a child that is not an object",
      JSON.stringify({ parent: { metadata: { name: "x" } }, children: { "Service.v1": { a: 1 } } }),
      400,
      "children",
    ],
    [
      "finalizing that is not a boolean",
      JSON.stringify({ parent: { metadata: { name: "x" } }, finalizing: "yes" }),
      400,
      "finalizing",
    ],
    [
      "a parent of another kind",
      JSON.stringify({ parent: { kind: "WebService", metadata: { name: "x" } } }),
      422,
      "parent.kind",
    ],
  ])("%s", async (_case, body, status, message) => {
    const response = await post(body);
    expect(response.status).toBe(status);
    expect(response.body.error).toContain(message);
    expect(response.text).not.toMatch(/at .*\.(js|ts):\d+/);
  });

  it("refuses a body that is not JSON by content type (415)", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
      const response = await post(validRequest, type);
      expect(response.status).toBe(415);
      expect(response.body.error).toContain("application/json");
    }
    const none = await request(app).post("/database/sync").send(Buffer.from(validRequest));
    expect(none.status).toBe(415);
  });

  it("refuses a body over the limit (413)", async () => {
    const { app: small } = testApp({ bodyLimitBytes: 2048 });
    const big = fixtures().find((f) => f.name === "postgresql-replicas-running")?.requestText ?? "";
    expect(big.length).toBeGreaterThan(2048);
    const response = await request(small)
      .post("/database/sync")
      .set("Content-Type", "application/json")
      .send(big);
    expect(response.status).toBe(413);
    expect(response.body.error).toContain("larger than the limit");
  });

  it("answers 200 with Failed and no deletions for a spec it cannot understand", async () => {
    const body = JSON.parse(validRequest);
    body.parent.spec = { engine: 42 };
    const response = await post(JSON.stringify(body));
    expect(response.status).toBe(200);
    expect(response.body.status.phase).toBe("Failed");
    expect(response.body.children).toEqual([]);
  });
});

describe("nasty inputs: a 4xx, or a 200 that loses nothing; never a 5xx", () => {
  const running = fixtures().find((f) => f.name === "postgresql-replicas-running");
  if (!running) throw new Error("fixture missing");
  const { parent, children } = running.request as Loose;
  const observed = Object.values(children).reduce((n: number, g) => n + Object.keys(g as object).length, 0);
  const post = (body: string, headers: Record<string, string> = {}) =>
    request(app)
      .post("/database/sync")
      .set({ "Content-Type": "application/json", ...headers })
      .send(body);
  const body = (patch: Loose) => JSON.stringify({ ...running.request, ...patch });
  /** `{"a":{"a":...1...}}`, `depth` levels deep. */
  const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
  /** A JSON object's text with `members` put first: the only way to send a literal "__proto__" key. */
  const withMembers = (json: string, members: string) => `{${members},${json.slice(1)}`;
  const invalidParent = { ...parent, spec: { ...parent.spec, replicas: 99 } };
  const failedKeepingAll = (response: request.Response) => {
    expect(response.status).toBe(200);
    expect(response.body.status.phase).toBe("Failed");
    expect(response.body.children).toHaveLength(observed);
  };
  const answered = (status: number, message?: string) => (response: request.Response) => {
    expect(response.status).toBe(status);
    if (message) expect(response.body.error).toContain(message);
  };
  const runningAsBefore = (response: request.Response) => {
    expect(response.status).toBe(200);
    expect(`${JSON.stringify(response.body, null, 2)}\n`).toBe(running.responseText);
  };

  it.each<[string, () => Promise<request.Response>, (response: request.Response) => void]>([
    [
      "a spec nested 100,000 levels deep",
      () => post(body({ parent: { ...parent, spec: "SPEC" } }).replace('"SPEC"', deep(100_000))),
      answered(400, "nests deeper than 1000 levels"),
    ],
    [
      "an observed child nested 100,000 levels deep, with an invalid spec",
      () =>
        post(
          body({
            parent: invalidParent,
            children: {
              ...children,
              "Service.v1": { x: { metadata: { name: "x" }, spec: { selector: "DEEP" } } },
            },
          }).replace('"DEEP"', deep(100_000)),
        ),
      answered(400, "nests deeper than 1000 levels"),
    ],
    [
      "an observed child's managedFields nested 100,000 levels deep, with an invalid spec",
      () =>
        post(
          body({
            parent: invalidParent,
            children: {
              ...children,
              "ConfigMap.v1": {
                ...children["ConfigMap.v1"],
                x: { metadata: { name: "x", managedFields: [{ fieldsV1: "DEEP" }] } },
              },
            },
          }).replace('"DEEP"', deep(100_000)),
        ),
      (response) => {
        // Kept without the fields only the server sets, managedFields among them.
        expect(response.status).toBe(200);
        expect(response.body.status.phase).toBe("Failed");
        expect(response.body.children).toHaveLength(observed + 1);
        expect(response.body.children).toContainEqual({
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "x" },
        });
      },
    ],
    [
      "a body that is an array nested 1,000,000 levels deep",
      () => post(`${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}`),
      answered(400, "JSON object"),
    ],
    [
      "a 3 MB name",
      () =>
        post(body({ parent: { ...parent, metadata: { ...parent.metadata, name: "a".repeat(3_000_000) } } })),
      (response) => {
        failedKeepingAll(response);
        expect(response.body.status.message).toContain("metadata.name: Invalid value");
      },
    ],
    [
      "a 3 MB annotation on an observed child",
      () => {
        const sts = children["StatefulSet.apps/v1"]["inventory-db"];
        const huge = { ...sts, metadata: { ...sts.metadata, annotations: { big: "x".repeat(3_000_000) } } };
        return post(body({ children: { ...children, "StatefulSet.apps/v1": { "inventory-db": huge } } }));
      },
      (response) => expect(response.status).toBe(200),
    ],
    [
      "__proto__ keys at the top, in the parent, its spec and the children",
      () => {
        const spec = withMembers(JSON.stringify(parent.spec), '"__proto__":{"replicas":7,"polluted":true}');
        const parentText = withMembers(
          JSON.stringify({ ...parent, spec: "SPEC" }),
          '"__proto__":{"kind":"WebService","polluted":true}',
        ).replace('"SPEC"', spec);
        const childrenText = withMembers(
          JSON.stringify(children),
          '"__proto__":{"polluted":{"metadata":{}}}',
        );
        return post(
          withMembers(
            JSON.stringify({ parent: "PARENT", children: "CHILDREN" }),
            '"__proto__":{"polluted":true,"finalizing":"yes"}',
          )
            .replace('"PARENT"', parentText)
            .replace('"CHILDREN"', childrenText),
        );
      },
      (response) => {
        runningAsBefore(response);
        expect(({} as Loose).polluted).toBeUndefined();
      },
    ],
    [
      "constructor.prototype keys",
      () =>
        post(
          body({
            constructor: { prototype: { polluted: true } },
            parent: { ...parent, constructor: { prototype: { polluted: true } } },
          }),
        ),
      (response) => {
        runningAsBefore(response);
        expect(({} as Loose).polluted).toBeUndefined();
      },
    ],
    [
      "a number for the name",
      () => post(body({ parent: { ...parent, metadata: { name: 42 } } })),
      answered(400, "parent.metadata.name"),
    ],
    [
      "a number for the namespace",
      () => post(body({ parent: { ...parent, metadata: { ...parent.metadata, namespace: 7 } } })),
      answered(400, "parent.metadata.namespace"),
    ],
    [
      "a number for the kind",
      () => post(body({ parent: { ...parent, kind: 42 } })),
      answered(422, "parent.kind"),
    ],
    [
      "a number for the version",
      () => post(body({ parent: { ...parent, spec: { ...parent.spec, version: 16 } } })),
      failedKeepingAll,
    ],
    [
      "a number for an observed child's name",
      () => post(body({ children: { ...children, "Service.v1": { x: { metadata: { name: 42 } } } } })),
      answered(400, 'children["Service.v1"]["x"].metadata.name: must be a string'),
    ],
    ["a string for children", () => post(body({ children: "none" })), answered(400, "children")],
    [
      "an array for a kind's children",
      () => post(body({ children: { "Service.v1": [] } })),
      answered(400, "children"),
    ],
    [
      "null for a child",
      () => post(body({ children: { "Service.v1": { x: null } } })),
      answered(400, "children"),
    ],
    [
      "a charset other than UTF-8",
      () => post("{}", { "Content-Type": "application/json; charset=latin1" }),
      answered(415),
    ],
    ["a compressed body", () => post("{}", { "Content-Encoding": "gzip" }), answered(415, "encoding")],
    ["a UTF-8 byte order mark", () => post(`\uFEFF${running.requestText}`), runningAsBefore],
  ])("%s", async (_case, send, expectation) => {
    const response = await send();
    expect(response.status).toBeLessThan(500);
    expect(response.text).not.toMatch(/at .*\.(js|ts):\d+/);
    expectation(response);
  });
});

describe("logs", () => {
  it("say when a parent's status changes, for a resource without phases too", async () => {
    const fixture = fixtures().find((f) => f.resource === "webservice" && f.name === "new");
    if (!fixture) throw new Error("fixture missing");
    const { app: fresh, lines: logged } = testApp();
    await request(fresh)
      .post("/webservice/sync")
      .set("Content-Type", "application/json")
      .send(fixture.requestText);
    const line = logged.map((l) => JSON.parse(l)).find((l) => l.resource === "webservice");
    expect(line).toMatchObject({ name: fixture.request.parent.metadata?.name, hook: "sync" });
    expect(line.msg).toMatch(/^Available=False Progressing=True/);
  });

  it("carry the parent's namespace/name and never a Secret's data", async () => {
    const fixture = fixtures().find((f) => f.name === "upgrade-in-progress");
    if (!fixture) throw new Error("fixture missing");
    await request(app)
      .post("/database/sync")
      .set("Content-Type", "application/json")
      .send(fixture.requestText);
    const secret = Object.values(fixture.request.children["Secret.v1"] ?? {})[0] as {
      data: Record<string, string>;
    };
    const logged = lines.join("\n");
    expect(logged).toContain('"namespace":"shop"');
    expect(logged).toContain('"name":"inventory"');
    // Every generated secret value (not "app" or the port, which are no secrets and appear in names).
    for (const value of Object.values(secret.data).filter((v) => Buffer.from(v, "base64").length >= 16)) {
      expect(logged).not.toContain(value);
      expect(logged).not.toContain(Buffer.from(value, "base64").toString());
    }
  });
});
