// AdmissionReview and ConversionReview over real HTTP requests against the app main builds.
import request from "supertest";
import { describe, expect, it } from "vitest";
import type { Resource } from "../../src/resources/resource.js";
import { testApp } from "../support/app.js";
import { POSTGRES, parent } from "../support/database.js";

const { app } = testApp();

function review(operation: string, object: unknown, oldObject?: unknown) {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      kind: { group: "dbhooks.io", version: "v1alpha1", kind: "Database" },
      resource: { group: "dbhooks.io", version: "v1alpha1", resource: "databases" },
      operation,
      object,
      oldObject: oldObject ?? null,
    },
  };
}

const post = (path: string, body: unknown) =>
  request(app).post(path).set("Content-Type", "application/json").send(JSON.stringify(body));

describe("POST /database/validate", () => {
  it("allows a valid Database, echoing the uid", async () => {
    const response = await post("/database/validate", review("CREATE", parent(POSTGRES)));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid: "705ab4f5-6393-11e8-b7cc-42010a800002", allowed: true },
    });
  });

  it("refuses with HTTP 200, allowed false and a message naming the field", async () => {
    const response = await post(
      "/database/validate",
      review("UPDATE", parent({ ...POSTGRES, storage: { size: "1Gi" } }), parent(POSTGRES)),
    );
    expect(response.status).toBe(200);
    expect(response.body.response).toMatchObject({
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      allowed: false,
      status: { code: 403, message: expect.stringContaining("spec.storage.size: Forbidden") },
    });
  });

  it("returns warnings for an admitted Database", async () => {
    const response = await post(
      "/database/validate",
      review("CREATE", parent({ ...POSTGRES, deletionPolicy: "Delete" })),
    );
    expect(response.body.response).toMatchObject({
      allowed: true,
      warnings: [expect.stringContaining("deletionPolicy is Delete")],
    });
  });

  it("allows DELETE and CONNECT without judging", async () => {
    const response = await post("/database/validate", review("DELETE", null, parent({ engine: "nope" })));
    expect(response.body.response).toMatchObject({ allowed: true });
  });

  it("refuses a review without an object, and answers 400 to what is not an AdmissionReview", async () => {
    expect((await post("/database/validate", review("CREATE", undefined))).body.response).toMatchObject({
      allowed: false,
    });
    const notReview = await post("/database/validate", { kind: "Something" });
    expect(notReview.status).toBe(400);
    expect(notReview.body.error).toContain("AdmissionReview");
  });
});

describe("POST /database/mutate", () => {
  it("answers a base64 JSONPatch that fills spec.resources", async () => {
    const response = await post("/database/mutate", review("CREATE", parent(POSTGRES)));
    expect(response.body.response).toMatchObject({ allowed: true, patchType: "JSONPatch" });
    const patch = JSON.parse(Buffer.from(response.body.response.patch, "base64").toString());
    expect(patch[0]).toEqual({
      op: "add",
      path: "/spec/resources",
      value: { requests: { cpu: "500m", memory: "512Mi" }, limits: { cpu: "750m", memory: "768Mi" } },
    });
  });

  it("answers no patch when there is nothing to default", async () => {
    const response = await post(
      "/database/mutate",
      review("CREATE", parent({ ...POSTGRES, resources: { limits: { cpu: "2" } } })),
    );
    expect(response.body.response).toEqual({ uid: "705ab4f5-6393-11e8-b7cc-42010a800002", allowed: true });
  });
});

describe("POST /database/convert", () => {
  const conversion = (desiredAPIVersion: string, objects: unknown[]) => ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "ConversionReview",
    request: { uid: "c0c0", desiredAPIVersion, objects },
  });

  it("converts every object and reports Success", async () => {
    const response = await post(
      "/database/convert",
      conversion("dbhooks.io/v1beta1", [parent({ ...POSTGRES, replicas: 3 })]),
    );
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "ConversionReview",
      response: { uid: "c0c0", result: { status: "Success" } },
    });
    expect(response.body.response.convertedObjects[0]).toMatchObject({
      apiVersion: "dbhooks.io/v1beta1",
      spec: { highAvailability: { enabled: true, autoFailover: false, failoverTimeout: "30s" } },
    });
  });

  it("reports Failure with a message, never a 5xx, for a version it does not serve", async () => {
    const response = await post("/database/convert", conversion("dbhooks.io/v9", [parent(POSTGRES)]));
    expect(response.status).toBe(200);
    expect(response.body.response).toMatchObject({
      uid: "c0c0",
      result: { status: "Failure", message: expect.stringContaining("not served") },
    });
  });
});

describe("a rule that throws", () => {
  it("is answered allowed: false with a message, not a 5xx and not a stack", async () => {
    const { createApp } = await import("../../src/http/app.js");
    const { createMetrics } = await import("../../src/http/metrics.js");
    const { pino } = await import("pino");
    const broken: Resource = {
      ...(await import("../../src/resources/registry.js")).loadResources()[0],
      admission: {
        validate: () => {
          throw new Error("boom");
        },
        mutate: () => {
          throw new Error("bang");
        },
      },
    } as Resource;
    const brokenApp = createApp({
      resources: [broken],
      logger: pino({ level: "silent" }),
      metrics: createMetrics(),
      bodyLimitBytes: 1 << 20,
      context: { credentialsKey: new Uint8Array(32), finalBackupTimeoutSeconds: 600 },
    });
    for (const path of ["/database/validate", "/database/mutate"]) {
      const response = await request(brokenApp)
        .post(path)
        .set("Content-Type", "application/json")
        .send(JSON.stringify(review("CREATE", parent(POSTGRES))));
      expect(response.status).toBe(200);
      expect(response.body.response).toMatchObject({
        allowed: false,
        status: { message: expect.stringMatching(/could not (validate|default) this Database: (boom|bang)/) },
      });
      expect(response.text).not.toMatch(/at .*\.(js|ts):\d+/);
    }
  });
});
