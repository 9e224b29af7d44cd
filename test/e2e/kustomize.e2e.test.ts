// What `kubectl apply -k manifests/` (and the cert-manager overlay) would send: built by a real kustomize
// (from the Go module proxy, with the control plane) and accepted by the API server.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { type ControlPlane, ensureControlPlaneBinaries, startControlPlane } from "./harness/control-plane.js";
import { manifest, ROOT } from "./support/dbhooks.js";
import { Kube, type Obj } from "./support/kube.js";

let cp: ControlPlane;
let kube: Kube;
let kustomize: string;

const build = (dir: string): Obj[] =>
  parseAllDocuments(execFileSync(kustomize, ["build", join(ROOT, dir)], { encoding: "utf8" }))
    .map((d) => d.toJS() as Obj)
    .filter(Boolean);

beforeAll(async () => {
  kustomize = join(await ensureControlPlaneBinaries(), "kustomize");
  cp = await startControlPlane();
  kube = new Kube(cp.kubeConfig);
});
afterAll(async () => {
  await cp?.stop();
});

describe("kubectl apply -k", () => {
  it("manifests/ builds and every object is accepted by the API server", async () => {
    const objects = build("manifests");
    expect(objects.map((o) => o.kind).sort()).toEqual([
      "CompositeController",
      "CompositeController",
      "CustomResourceDefinition",
      "CustomResourceDefinition",
      "Deployment",
      "Namespace",
      "NetworkPolicy",
      "PodDisruptionBudget",
      "Service",
      "ServiceAccount",
    ]);
    await kube.establish([
      ...objects.filter((o) => o.kind === "CustomResourceDefinition"),
      ...manifest("test/e2e/fixtures/metacontroller-crds.yaml"),
    ]);
    await kube.create(objects.find((o) => o.kind === "Namespace") as Obj);
    for (const object of objects.filter(
      (o) => o.kind !== "CustomResourceDefinition" && o.kind !== "Namespace",
    )) {
      await kube.create(object, { dryRun: true });
      await kube.create(object);
    }
    const deployment = objects.find((o) => o.kind === "Deployment");
    expect(deployment?.spec.template.spec.containers[0].image).toBe("dbhooks/dbhooks:0.1.0");
  });

  it("the cert-manager overlay adds the webhooks and a certificate, with the CA injected everywhere it is needed", async () => {
    const objects = build("manifests/overlays/cert-manager");
    const injected = objects.filter(
      (o) => o.metadata.annotations?.["cert-manager.io/inject-ca-from"] === "dbhooks/dbhooks-webhook",
    );
    expect(injected.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      "CustomResourceDefinition/databases.dbhooks.io",
      "MutatingWebhookConfiguration/databases.dbhooks.io",
      "ValidatingWebhookConfiguration/databases.dbhooks.io",
    ]);
    const certificate = objects.find((o) => o.kind === "Certificate");
    const deployment = objects.find((o) => o.kind === "Deployment");
    expect(deployment?.spec.template.spec.volumes).toContainEqual({
      name: "tls",
      secret: { secretName: certificate?.spec.secretName, optional: true },
    });
    for (const webhooks of objects.filter((o) => o.kind.endsWith("WebhookConfiguration")))
      await kube.create(webhooks, { dryRun: true });
  });
});
