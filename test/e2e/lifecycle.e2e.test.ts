// 4. The lifecycle of a Database, end to end: the dbhooks service runs as a real HTTP server, the test's
// driver does what Metacontroller does against a real kube-apiserver (with the garbage collector of a real
// kube-controller-manager), and the test plays the StatefulSet and Job controllers by writing status.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, startControlPlane } from "./harness/control-plane.js";
import { type DbhooksServer, manifest, startDbhooks } from "./support/dbhooks.js";
import { Kube, waitFor } from "./support/kube.js";
import { type ControllerSpec, MiniMetacontroller, type PassResult } from "./support/metacontroller.js";
import { LifecycleSteps, type Reconciler } from "./support/scenario.js";

const NS = "lifecycle";
const NAME = "orders";
let cp: ControlPlane;
let kube: Kube;
let dbhooks: DbhooksServer;
let driver: MiniMetacontroller;
const timings: Record<string, number> = {};
const passes: PassResult[] = [];

/** Reconcile passes until a pass changes nothing, then check; a few rounds for asynchronous effects (GC). */
const reconciler: Reconciler = {
  async until(what, check) {
    return waitFor(
      what,
      async () => {
        passes.push(...(await driver.settle(NS, NAME)));
        return check();
      },
      60_000,
    );
  },
};

let scenario: LifecycleSteps;

beforeAll(async () => {
  cp = await startControlPlane();
  kube = new Kube(cp.kubeConfig);
  dbhooks = await startDbhooks();
  await kube.establish(manifest("manifests/crds/database.yaml"));
  await kube.createNamespace(NS);
  // pvc-protection: the API server puts its finalizer on every PVC; without the controller none would go.
  cp.startControllers(["garbagecollector", "pvc-protection"]);
  const [controller] = manifest("manifests/controllers/database.yaml");
  driver = new MiniMetacontroller(kube, controller as ControllerSpec, {
    hookBase: dbhooks.url,
    parentKind: "Database",
  });
  scenario = new LifecycleSteps({ kube, namespace: NS, name: NAME, reconciler, timings });
});

afterAll(async () => {
  await dbhooks?.stop();
  await cp?.stop();
  const syncs = passes.filter((p) => p.hook === "sync");
  const writes = syncs.map((p) => p.apiWrites);
  console.log(
    `lifecycle (test driver): ${JSON.stringify({ ...timings, syncs: syncs.length, apiRequestsPerSyncMedian: median(syncs.map((p) => p.apiRequests)), apiWritesPerSyncMedian: median(writes), apiWritesPerSyncMax: Math.max(...writes) })}`,
  );
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

describe("a Database from creation to deletion (test driver)", () => {
  it("gets its children and the finalizer once created", async () => {
    await scenario.create();
    expect((await scenario.database()).metadata.finalizers).toContain(driver.finalizer);
  });

  it("is Running with its endpoints once the StatefulSet reports ready, and then a sync changes nothing", async () => {
    await scenario.becomeRunning();
    expect(await driver.reconcile(NS, NAME)).toMatchObject({
      created: [],
      updated: [],
      deleted: [],
      statusWritten: false,
    });
  });

  it("scales 1 -> 3: a readonly Service and a PDB appear, then Running again", () => scenario.scaleToThree());
  it("rolls a minor version: Upgrading, then Running", () => scenario.minorUpgrade());
  it("refuses a major version: Failed, the running image kept", () => scenario.majorUpgradeRefused());

  it("keeps every child, untouched, when the spec breaks", async () => {
    const from = passes.length;
    await scenario.brokenSpecKeepsEverything();
    expect(passes.slice(from).flatMap((p) => [...p.created, ...p.updated, ...p.deleted])).toEqual([]);
  });

  it("takes a final backup when deleted, then lets go, and the children are garbage-collected", () =>
    scenario.deleteWithFinalBackup());
});
