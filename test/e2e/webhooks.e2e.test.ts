// The API server calling dbhooks' admission and conversion webhooks over TLS, with a caBundle, as in a
// cluster: refusals reach kubectl-equivalent calls with our message, defaults appear on created objects,
// warnings come back, a v1beta1 object reads back unchanged in both versions, and a rotated certificate
// is picked up without a restart.
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, startControlPlane } from "./harness/control-plane.js";
import { makeCa, makeServingCert, type ServingCert } from "./support/certs.js";
import { type DbhooksServer, manifest, startDbhooks } from "./support/dbhooks.js";
import { Kube, KubeError, type Obj, waitFor } from "./support/kube.js";

const NS = "webhooks";
let cp: ControlPlane;
let kube: Kube;
let dbhooks: DbhooksServer;
let dir: string;
let cert: ServingCert;

const database = (name: string, spec: Obj, apiVersion = "dbhooks.io/v1alpha1"): Obj => ({
  apiVersion,
  kind: "Database",
  metadata: { name, namespace: NS },
  spec,
});
const POSTGRES = { engine: "postgresql", version: "16", storage: { size: "10Gi" } };

/** The webhook configurations of manifests/, pointed at this test's dbhooks with the test CA. */
function webhookConfigurations(): Obj[] {
  return manifest("manifests/webhooks/database.yaml").map((configuration) => ({
    ...configuration,
    webhooks: configuration.webhooks.map((webhook: Obj) => ({
      ...webhook,
      clientConfig: {
        url: `${dbhooks.tlsUrl}${webhook.clientConfig.service.path}`,
        caBundle: Buffer.from(cert.caPem).toString("base64"),
      },
    })),
  }));
}

async function refusal(what: () => Promise<unknown>): Promise<string> {
  try {
    await what();
  } catch (error) {
    if (error instanceof KubeError) return error.message;
    throw error;
  }
  throw new Error("the API server accepted it");
}

function servedCertificate(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), rejectUnauthorized: false }, () => {
      resolve(socket.getPeerX509Certificate()?.fingerprint256 ?? "");
      socket.end();
    });
    socket.on("error", reject);
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "dbhooks-webhooks-"));
  makeCa(dir);
  cert = makeServingCert(dir, "serving");
  cp = await startControlPlane();
  kube = new Kube(cp.kubeConfig);
  dbhooks = await startDbhooks({
    DBHOOKS_TLS_CERT_FILE: cert.certFile,
    DBHOOKS_TLS_KEY_FILE: cert.keyFile,
    DBHOOKS_TLS_PORT: "0",
    DBHOOKS_TLS_RELOAD_SECONDS: "1",
  });
  const [crd] = manifest("manifests/crds/database.yaml") as [Obj];
  crd.spec.conversion.webhook.clientConfig = {
    url: `${dbhooks.tlsUrl}/database/convert`,
    caBundle: Buffer.from(cert.caPem).toString("base64"),
  };
  await kube.establish([crd]);
  for (const configuration of webhookConfigurations()) await kube.create(configuration);
  await kube.createNamespace(NS);
  // Webhook configurations take effect asynchronously: wait until a refusal comes from dbhooks.
  await waitFor("the validating webhook to be called", async () => {
    const message = await refusal(() =>
      kube.create(database("probe", { ...POSTGRES, engine: "mongodb", version: "7.0", replicas: 2 })),
    ).catch(() => "");
    return message.includes("odd number");
  });
});

afterAll(async () => {
  await dbhooks?.stop();
  await cp?.stop();
});

describe("admission webhooks called by the API server over TLS", () => {
  it("refuses a MongoDB replica set with an even member count, with dbhooks' message", async () => {
    const message = await refusal(() =>
      kube.create(
        database("even", { engine: "mongodb", version: "7.0", replicas: 4, storage: { size: "1Gi" } }),
      ),
    );
    expect(message).toContain('admission webhook "validate.databases.dbhooks.io" denied the request');
    expect(message).toContain("spec.replicas: Invalid value: 4");
  });

  it("defaults spec.resources from the size preset, and warns about risky choices", async () => {
    const created = await kube.create(
      database("orders", { ...POSTGRES, size: "medium", deletionPolicy: "Delete" }),
    );
    expect(created.spec.resources).toEqual({
      limits: { cpu: "750m", memory: "1536Mi" },
      requests: { cpu: "500m", memory: "1Gi" },
    });
    expect(created.metadata.annotations["dbhooks.io/resources-from-size"]).toBe("medium");
    expect(kube.lastWarnings).toEqual([expect.stringContaining("spec.deletionPolicy is Delete")]);
  });

  it("refuses shrinking a volume and a major version change on update", async () => {
    const path = `/apis/dbhooks.io/v1alpha1/namespaces/${NS}/databases/orders`;
    const shrink = await refusal(() =>
      kube.request("PATCH", path, { spec: { storage: { size: "5Gi" } } }, "application/merge-patch+json"),
    );
    expect(shrink).toContain("spec.storage.size: Forbidden: cannot shrink from 10Gi to 5Gi");
    const major = await refusal(() =>
      kube.request("PATCH", path, { spec: { version: "17" } }, "application/merge-patch+json"),
    );
    expect(major).toContain("spec.version: Forbidden: major version change 16 -> 17");
    const grown = await kube.request(
      "PATCH",
      path,
      { spec: { storage: { size: "20Gi" } } },
      "application/merge-patch+json",
    );
    expect(grown.spec.storage.size).toBe("20Gi");
  });

  it("stores a v1beta1 object as v1alpha1 and reads it back unchanged in both versions", async () => {
    const highAvailability = { enabled: true, autoFailover: true, failoverTimeout: "2m" };
    const written = await kube.create(
      database("ha", { ...POSTGRES, replicas: 3, highAvailability }, "dbhooks.io/v1beta1"),
    );
    expect(written.spec.highAvailability).toEqual(highAvailability);
    const asAlpha = await kube.request("GET", `/apis/dbhooks.io/v1alpha1/namespaces/${NS}/databases/ha`);
    expect(asAlpha.spec.highAvailability).toBeUndefined();
    expect(JSON.parse(asAlpha.metadata.annotations["dbhooks.io/high-availability"])).toEqual(
      highAvailability,
    );
    const asBeta = await kube.request("GET", `/apis/dbhooks.io/v1beta1/namespaces/${NS}/databases/ha`);
    expect(asBeta.spec).toEqual(written.spec);
    expect(asBeta.metadata.annotations).toEqual(written.metadata.annotations);
    // And the defaults of v1beta1 for an object written as v1alpha1: enabled follows replicas.
    const orders = await kube.request("GET", `/apis/dbhooks.io/v1beta1/namespaces/${NS}/databases/orders`);
    expect(orders.spec.highAvailability).toEqual({
      enabled: false,
      autoFailover: false,
      failoverTimeout: "30s",
    });
  });

  it("serves a rotated certificate without a restart", async () => {
    const before = await servedCertificate(dbhooks.tlsUrl ?? "");
    const next = makeServingCert(dir, "rotated");
    copyFileSync(next.keyFile, cert.keyFile);
    copyFileSync(next.certFile, cert.certFile);
    await waitFor(
      "the new certificate to be served",
      async () => (await servedCertificate(dbhooks.tlsUrl ?? "")) !== before,
      20_000,
    );
    const message = await refusal(() =>
      kube.create(
        database("after-rotation", {
          engine: "mongodb",
          version: "7.0",
          replicas: 2,
          storage: { size: "1Gi" },
        }),
      ),
    );
    expect(message).toContain("odd number");
    expect(await kube.create(database("still-admitted", POSTGRES))).toMatchObject({
      spec: { resources: expect.any(Object) },
    });
  });
});
