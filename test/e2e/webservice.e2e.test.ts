// 5. A WebService in front of a Database, end to end: dbhooks runs as a real HTTP server, two test drivers do
// what Metacontroller's two CompositeControllers do against a real kube-apiserver (with the garbage
// collector of a real kube-controller-manager), and the test plays the Deployment controller by writing
// status. The WebService comes up with the Database's credentials wired in, and goes with its children.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, startControlPlane } from "./harness/control-plane.js";
import { type DbhooksServer, manifest, startDbhooks } from "./support/dbhooks.js";
import { Kube, type Obj, waitFor } from "./support/kube.js";
import { type ControllerSpec, MiniMetacontroller } from "./support/metacontroller.js";

const NS = "storefront";
const DATABASE = "orders";
const NAME = "storefront";
const INJECTED: readonly (readonly [string, string])[] = [
  ["DATABASE_URL", "uri"],
  ["DATABASE_HOST", "host"],
  ["DATABASE_PORT", "port"],
  ["DATABASE_USER", "username"],
  ["DATABASE_PASSWORD", "password"],
];
let cp: ControlPlane;
let kube: Kube;
let dbhooks: DbhooksServer;
let databases: MiniMetacontroller;
let webServices: MiniMetacontroller;

const webServicePath = `/apis/dbhooks.io/v1alpha1/namespaces/${NS}/webservices/${NAME}`;
const deploymentPath = `/apis/apps/v1/namespaces/${NS}/deployments/${NAME}`;
const webService = () => kube.request("GET", webServicePath);
const patchSpec = (spec: Obj) =>
  kube.request("PATCH", webServicePath, { spec }, "application/merge-patch+json");

function driver(resource: string, parentKind: string): MiniMetacontroller {
  const [controller] = manifest(`manifests/controllers/${resource}.yaml`);
  return new MiniMetacontroller(kube, controller as ControllerSpec, { hookBase: dbhooks.url, parentKind });
}

/** Reconcile the parent until a pass changes nothing, then check; again until the check holds. */
function until<T>(
  controller: MiniMetacontroller,
  name: string,
  what: string,
  check: () => Promise<T | undefined | false>,
) {
  return waitFor(
    what,
    async () => {
      await controller.settle(NS, name);
      return check();
    },
    60_000,
  );
}

const KINDS = [
  ["apps/v1", "Deployment"],
  ["v1", "Service"],
  ["networking.k8s.io/v1", "Ingress"],
] as const;

/** The WebService's children, as `Kind/name@resourceVersion`. */
async function children(): Promise<string[]> {
  const out: string[] = [];
  for (const [apiVersion, kind] of KINDS) {
    const items = await kube.list(apiVersion, kind, NS, `app.kubernetes.io/instance=${NAME}`);
    const owned = items.filter((o) => o.metadata.ownerReferences?.some((r: Obj) => r.kind === "WebService"));
    out.push(...owned.map((o) => `${kind}/${o.metadata.name}@${o.metadata.resourceVersion}`));
  }
  return out.sort();
}

/** A condition of the WebService's status, once its status is about the current generation. */
async function conditionOf(type: string): Promise<Obj | undefined> {
  const ws = await webService();
  if (ws.status?.observedGeneration !== ws.metadata.generation) return undefined;
  return (ws.status.conditions as Obj[] | undefined)?.find((c) => c.type === type);
}

/** What the Deployment controller writes once every replica of the current spec is available. */
async function reportAvailable(): Promise<void> {
  const deployment = await kube.request("GET", deploymentPath);
  const replicas = deployment.spec.replicas as number;
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const condition = (type: string, reason: string, message: string) => ({
    type,
    status: "True",
    lastUpdateTime: now,
    lastTransitionTime: now,
    reason,
    message,
  });
  await kube.replaceStatus({
    ...deployment,
    status: {
      observedGeneration: deployment.metadata.generation,
      replicas,
      updatedReplicas: replicas,
      readyReplicas: replicas,
      availableReplicas: replicas,
      conditions: [
        condition("Available", "MinimumReplicasAvailable", "Deployment has minimum availability."),
        condition(
          "Progressing",
          "NewReplicaSetAvailable",
          `ReplicaSet "${NAME}-1" has successfully progressed.`,
        ),
      ],
    },
  });
}

beforeAll(async () => {
  cp = await startControlPlane();
  kube = new Kube(cp.kubeConfig);
  dbhooks = await startDbhooks();
  await kube.establish(
    ["database", "webservice"].flatMap((resource) => manifest(`manifests/crds/${resource}.yaml`)),
  );
  await kube.createNamespace(NS);
  cp.startControllers(["garbagecollector", "pvc-protection"]);
  databases = driver("database", "Database");
  webServices = driver("webservice", "WebService");
});

afterAll(async () => {
  await dbhooks?.stop();
  await cp?.stop();
});

describe("a WebService in front of a Database (test drivers)", () => {
  it("starts from a Database whose credentials Secret exists", async () => {
    const [example] = manifest("manifests/examples/postgresql-single.yaml");
    await kube.create({ ...example, metadata: { ...example?.metadata, name: DATABASE, namespace: NS } });
    const secret = await until(databases, DATABASE, "the credentials Secret", () =>
      kube.get({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: `${DATABASE}-db-credentials`, namespace: NS },
      }),
    );
    expect(Object.keys(secret.data)).toEqual(expect.arrayContaining(INJECTED.map(([, key]) => key)));
  });

  it("gets a Deployment with the Database's credentials by reference, a Service and an Ingress", async () => {
    const [example] = manifest("manifests/examples/webservice.yaml");
    expect(example?.spec.databaseRef.name).toBe(DATABASE);
    await kube.create({ ...example, metadata: { ...example?.metadata, name: NAME, namespace: NS } });
    await until(webServices, NAME, "every child", async () => (await children()).length === 3);
    const deployment = await kube.request("GET", deploymentPath);
    expect(deployment.metadata.ownerReferences[0]).toMatchObject({
      kind: "WebService",
      name: NAME,
      controller: true,
    });
    const env = deployment.spec.template.spec.containers[0].env as Obj[];
    expect(env.slice(0, INJECTED.length)).toEqual(
      INJECTED.map(([name, key]) => ({
        name,
        valueFrom: { secretKeyRef: { name: `${DATABASE}-db-credentials`, key } },
      })),
    );
    expect(env.slice(INJECTED.length)).toEqual([{ name: "LOG_LEVEL", value: "info" }]);
    const secret = await kube.request("GET", `/api/v1/namespaces/${NS}/secrets/${DATABASE}-db-credentials`);
    for (const [, key] of INJECTED) expect(Buffer.from(secret.data[key], "base64").toString()).not.toBe("");
    expect(await conditionOf("Available")).toMatchObject({ status: "Unknown", reason: "NoDeploymentStatus" });
  });

  it("is Available with its url once the Deployment reports available, and then a sync changes nothing", async () => {
    await reportAvailable();
    const available = await until(webServices, NAME, "Available=True", async () =>
      (await conditionOf("Available"))?.status === "True" ? webService() : undefined,
    );
    expect(available.status).toMatchObject({ availableReplicas: 3, url: "https://shop.example.com" });
    expect(await conditionOf("Progressing")).toMatchObject({
      status: "True",
      reason: "NewReplicaSetAvailable",
    });
    const scale = await kube.request("GET", `${webServicePath}/scale`);
    expect(scale.status).toMatchObject({ replicas: 3, selector: available.status.selector });
    expect(await webServices.reconcile(NS, NAME)).toMatchObject({
      created: [],
      updated: [],
      deleted: [],
      statusWritten: false,
    });
  });

  it("keeps every child untouched when the spec sets a variable that databaseRef sets", async () => {
    const before = await children();
    // The CRD accepts it; only the hook can refuse it.
    await patchSpec({ env: [{ name: "DATABASE_URL", value: "postgresql://elsewhere" }] });
    const refused = await until(webServices, NAME, "InvalidSpec", async () => {
      const condition = await conditionOf("Available");
      return condition?.reason === "InvalidSpec" ? condition : undefined;
    });
    expect(refused.message).toContain('spec.env[0].name: Invalid value: "DATABASE_URL"');
    expect(await children()).toEqual(before);
    await patchSpec({ env: [{ name: "LOG_LEVEL", value: "info" }] });
    await until(
      webServices,
      NAME,
      "Available=True",
      async () => (await conditionOf("Available"))?.status === "True",
    );
    expect(await children()).toEqual(before);
  });

  it("drops the Ingress when it is switched off, and then gives the Service's url", async () => {
    await patchSpec({ ingress: { enabled: false } });
    const ws = await until(webServices, NAME, "the in-cluster url", async () => {
      const current = await webService();
      return current.status?.url === `http://${NAME}.${NS}.svc.cluster.local` ? current : undefined;
    });
    expect((await children()).map((c) => c.split("@")[0])).toEqual([`Deployment/${NAME}`, `Service/${NAME}`]);
    expect(ws.status.availableReplicas).toBe(3);
  });

  it("is deleted at once (no finalizer), and the garbage collector removes its children", async () => {
    expect((await webService()).metadata.finalizers).toBeUndefined();
    await kube.request("DELETE", webServicePath);
    await waitFor(
      "the children to be garbage-collected",
      async () => (await children()).length === 0,
      60_000,
    );
    const secret = await kube.get({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: `${DATABASE}-db-credentials`, namespace: NS },
    });
    expect(secret, "the Database's Secret is not the WebService's to delete").toBeDefined();
  });
});
