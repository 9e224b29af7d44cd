// 5. The same lifecycle, driven by the real Metacontroller: METACONTROLLER_BIN points at a binary built by
// hand from Metacontroller's source (this project contains none of its code and no script that builds it).
// The e2e config includes this file only when METACONTROLLER_BIN is set.
import { type ChildProcess, spawn } from "node:child_process";
import { openSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { type ControlPlane, startControlPlane } from "./harness/control-plane.js";
import { type DbhooksServer, manifest, startDbhooks } from "./support/dbhooks.js";
import { Kube, type Obj, waitFor } from "./support/kube.js";
import { LifecycleSteps, type Reconciler } from "./support/scenario.js";

const NS = "lifecycle-real";
const NAME = "orders";
let cp: ControlPlane;
let kube: Kube;
let dbhooks: DbhooksServer;
let metacontroller: ChildProcess | undefined;
const timings: Record<string, number> = {};

// Metacontroller reacts to watch events by itself: the test only waits.
const reconciler: Reconciler = { until: (what, check) => waitFor(what, check, 60_000) };
let scenario: LifecycleSteps;

beforeAll(async () => {
  const binary = process.env.METACONTROLLER_BIN;
  if (!binary) throw new Error("METACONTROLLER_BIN is not set");
  cp = await startControlPlane();
  kube = new Kube(cp.kubeConfig);
  dbhooks = await startDbhooks();
  await kube.establish([
    ...manifest("manifests/crds/database.yaml"),
    ...manifest("test/e2e/fixtures/metacontroller-crds.yaml"),
  ]);
  await kube.createNamespace(NS);
  // pvc-protection: the API server puts its finalizer on every PVC; without the controller none would go.
  cp.startControllers(["garbagecollector", "pvc-protection"]);
  // The shipped controller, with its hooks pointed at this test's dbhooks instead of the in-cluster Service.
  const [controller] = manifest("manifests/controllers/database.yaml") as Obj[];
  for (const hook of Object.values(controller?.spec.hooks as Record<string, Obj>)) {
    const { path, timeout } = hook.webhook;
    hook.webhook = { url: `${dbhooks.url}${path}`, timeout };
  }
  await kube.create(controller as Obj);
  const log = openSync(join(cp.dir, "metacontroller.log"), "a");
  metacontroller = spawn(
    binary,
    ["--metrics-address=0", "--health-probe-bind-address=0", "--discovery-interval=1s", "--zap-log-level=4"],
    {
      env: { ...process.env, KUBECONFIG: cp.kubeconfigPath },
      stdio: ["ignore", log, log],
    },
  );
  scenario = new LifecycleSteps({ kube, namespace: NS, name: NAME, reconciler, timings });
});

afterAll(async () => {
  metacontroller?.kill("SIGKILL");
  await dbhooks?.stop();
  await cp?.stop();
  console.log(`lifecycle (real Metacontroller): ${JSON.stringify(timings)}`);
});

describe("a Database from creation to deletion (real Metacontroller)", () => {
  it("gets its children once created", () => scenario.create());
  it("is Running with its endpoints once the StatefulSet reports ready", () => scenario.becomeRunning());
  it("scales 1 -> 3: a readonly Service and a PDB appear, then Running again", () => scenario.scaleToThree());
  it("rolls a minor version: Upgrading, then Running", () => scenario.minorUpgrade());
  it("refuses a major version: Failed, the running image kept", () => scenario.majorUpgradeRefused());
  it("keeps every child, untouched, when the spec breaks", () => scenario.brokenSpecKeepsEverything());
  it("takes a final backup when deleted, then lets go, and the children are garbage-collected", () =>
    scenario.deleteWithFinalBackup());
});
