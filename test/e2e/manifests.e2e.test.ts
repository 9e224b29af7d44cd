// 1. manifests/ apply cleanly to a real kube-apiserver; 2. the Database CRD defaults and validates.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, startControlPlane } from "./harness/control-plane.js";
import { manifest } from "./support/dbhooks.js";
import { Kube, KubeError, type Obj } from "./support/kube.js";

let cp: ControlPlane;
let kube: Kube;

async function refusal(object: Obj): Promise<string> {
  try {
    await kube.create(object);
  } catch (error) {
    if (error instanceof KubeError && error.status === 422) return error.message;
    throw error;
  }
  throw new Error(`the API server accepted ${JSON.stringify(object.spec)}`);
}

beforeAll(async () => {
  cp = await startControlPlane();
  kube = new Kube(cp.kubeConfig);
});
afterAll(async () => {
  await cp?.stop();
});

describe("manifests/ against a real API server", () => {
  it("accepts the Database CRD as structural, and it becomes Established", async () => {
    const [live] = (await kube.establish(manifest("manifests/crds/database.yaml"))) as [Obj];
    const conditions = live.status.conditions as Obj[];
    expect(conditions.find((c) => c.type === "NonStructuralSchema")).toBeUndefined();
    expect(conditions.find((c) => c.type === "NamesAccepted")?.status).toBe("True");
    expect(live.status.acceptedNames.shortNames).toEqual(["db"]);
  });

  it("accepts the WebService CRD as structural, with its short name and scale subresource", async () => {
    const [live] = (await kube.establish(manifest("manifests/crds/webservice.yaml"))) as [Obj];
    expect((live.status.conditions as Obj[]).find((c) => c.type === "NonStructuralSchema")).toBeUndefined();
    expect(live.status.acceptedNames.shortNames).toEqual(["ws"]);
  });

  it("accepts the CompositeControllers against Metacontroller's documented schema", async () => {
    await kube.establish(manifest("test/e2e/fixtures/metacontroller-crds.yaml"));
    const controllers = ["database", "webservice"].flatMap((r) =>
      manifest(`manifests/controllers/${r}.yaml`),
    );
    for (const controller of controllers) {
      await kube.create(controller, { dryRun: true });
      const created = await kube.create(controller);
      expect(created.spec.childResources).toEqual(controller.spec.childResources);
      expect(created.spec.hooks).toEqual(controller.spec.hooks);
    }
  });

  it("accepts every deploy manifest, dry-run first and then for real", async () => {
    const files = ["namespace", "serviceaccount", "deployment", "service", "networkpolicy", "pdb"];
    for (const file of files) {
      for (const object of manifest(`manifests/deploy/${file}.yaml`)) {
        if (object.kind !== "Namespace") await kube.create(object, { dryRun: true });
        const created = await kube.create(object);
        expect(created.metadata.uid).toEqual(expect.any(String));
      }
    }
  });
});

describe("the Database CRD does its job", () => {
  beforeAll(async () => {
    await kube.createNamespace("crd-checks");
  });

  it.each(["postgresql-single", "postgresql-replicated", "mysql", "mongodb"])(
    "accepts examples/%s.yaml and fills the schema's defaults",
    async (example) => {
      const [database] = manifest(`manifests/examples/${example}.yaml`) as Obj[];
      const created = await kube.create({
        ...database,
        metadata: { ...database?.metadata, namespace: "crd-checks" },
      });
      expect(created.spec).toMatchObject({
        replicas: database?.spec.replicas ?? 1,
        size: database?.spec.size ?? "small",
        deletionPolicy: database?.spec.deletionPolicy ?? "Retain",
        backup: {
          enabled: database?.spec.backup?.enabled ?? true,
          schedule: database?.spec.backup?.schedule ?? "0 2 * * *",
          retention: database?.spec.backup?.retention ?? 7,
        },
      });
    },
  );

  const base = { engine: "postgresql", version: "16", storage: { size: "1Gi" } };
  it.each([
    ["bad engine", { ...base, engine: "oracle" }, "spec.engine"],
    ["bad version pattern", { ...base, version: "latest" }, "spec.version"],
    ["replicas 0", { ...base, replicas: 0 }, "spec.replicas"],
    ["replicas 8", { ...base, replicas: 8 }, "spec.replicas"],
    ["bad storage size", { ...base, storage: { size: "10GB" } }, "spec.storage.size"],
    ["bad schedule", { ...base, backup: { schedule: "every day" } }, "spec.backup.schedule"],
    ["missing storage", { engine: "postgresql", version: "16" }, "spec.storage"],
  ])("refuses %s, naming the field", async (_case, spec, field) => {
    const message = await refusal({
      apiVersion: "dbhooks.io/v1alpha1",
      kind: "Database",
      metadata: { name: "invalid", namespace: "crd-checks" },
      spec,
    });
    expect(message).toContain(field);
  });
});

describe("the WebService CRD does its job", () => {
  const base = { image: "ghcr.io/acme/storefront:1.4.2" };
  const webService = (name: string, spec: unknown) => ({
    apiVersion: "dbhooks.io/v1alpha1",
    kind: "WebService",
    metadata: { name, namespace: "crd-checks" },
    spec,
  });

  it("accepts examples/webservice.yaml and fills the schema's defaults", async () => {
    const [example] = manifest("manifests/examples/webservice.yaml") as Obj[];
    const created = await kube.create({
      ...example,
      metadata: { ...example?.metadata, namespace: "crd-checks" },
    });
    expect(created.spec).toMatchObject({ replicas: 3, port: 8080, ingress: { enabled: true, tls: true } });
    const minimal = await kube.create(webService("minimal", base));
    expect(minimal.spec).toEqual({
      ...base,
      replicas: 3,
      port: 8080,
      ingress: { enabled: false, tls: true },
    });
  });

  it.each([
    ["no image", {}, "spec.image"],
    ["replicas 0", { ...base, replicas: 0 }, "spec.replicas"],
    ["replicas 101", { ...base, replicas: 101 }, "spec.replicas"],
    ["bad cpu", { ...base, resources: { limits: { cpu: "0.5" } } }, "spec.resources.limits.cpu"],
    ["bad host", { ...base, ingress: { enabled: true, host: "Shop.io" } }, "spec.ingress.host"],
    ["duplicate env", { ...base, env: [{ name: "A" }, { name: "A" }] }, "spec.env[1]"],
  ])("refuses %s, naming the field", async (_case, spec, field) => {
    expect(await refusal(webService("invalid", spec))).toContain(field);
  });
});
