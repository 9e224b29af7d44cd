// The lifecycle scenario of a Database, written once and driven by either the test's own driver or the
// real Metacontroller: each step changes something, then waits (through `until`) for what must follow.
import { expect } from "vitest";
import { CHILD_KINDS } from "../../../src/resources/database/kinds.js";
import { manifest } from "./dbhooks.js";
import type { Kube, Obj } from "./kube.js";

export interface Reconciler {
  /** Drives reconciliation until check() answers something truthy, which it returns. */
  until<T>(what: string, check: () => Promise<T | undefined | false>): Promise<T>;
}

export interface Scenario {
  readonly kube: Kube;
  readonly namespace: string;
  readonly name: string;
  readonly reconciler: Reconciler;
  readonly timings: Record<string, number>;
}

/** Every kind a Database's hooks emit. */
const KINDS = Object.values(CHILD_KINDS);

/** The steps of the scenario; each waits, through the reconciler, for what must follow. */
export class LifecycleSteps {
  readonly #s: Scenario;
  readonly #databasePath: string;

  constructor(scenario: Scenario) {
    this.#s = scenario;
    this.#databasePath = `/apis/dbhooks.io/v1alpha1/namespaces/${scenario.namespace}/databases/${scenario.name}`;
  }

  database(): Promise<Obj> {
    return this.#s.kube.request("GET", this.#databasePath);
  }

  statefulSet(): Promise<Obj> {
    return this.#s.kube.request(
      "GET",
      `/apis/apps/v1/namespaces/${this.#s.namespace}/statefulsets/${this.#s.name}-db`,
    );
  }

  #phase(wanted: string) {
    return async () => {
      const db = await this.database();
      return db.status?.phase === wanted && db.status.observedGeneration === db.metadata.generation
        ? db
        : undefined;
    };
  }

  #patchSpec(spec: Obj): Promise<Obj> {
    return this.#s.kube.request("PATCH", this.#databasePath, { spec }, "application/merge-patch+json");
  }

  #until<T>(what: string, check: () => Promise<T | undefined | false>): Promise<T> {
    return this.#s.reconciler.until(what, check);
  }

  /** Every child of the Database, as `Kind/name` (with `@resourceVersion` if asked). */
  async children(withVersions = false): Promise<string[]> {
    const { kube, namespace, name } = this.#s;
    const out: string[] = [];
    for (const { apiVersion, kind } of KINDS) {
      const items = await kube.list(apiVersion, kind, namespace, `app.kubernetes.io/instance=${name}`);
      const owned = items.filter((o) =>
        (o.metadata.ownerReferences ?? []).some((r: Obj) => r.kind === "Database" && r.controller),
      );
      out.push(
        ...owned.map(
          (o) => `${kind}/${o.metadata.name}${withVersions ? `@${o.metadata.resourceVersion}` : ""}`,
        ),
      );
    }
    return out.sort();
  }

  /** What the StatefulSet controller writes once every replica of the current spec is ready. */
  async #reportReady(): Promise<void> {
    const sts = await this.statefulSet();
    const replicas = sts.spec.replicas as number;
    const revision = `${this.#s.name}-db-${sts.metadata.generation}`;
    await this.#s.kube.replaceStatus({
      ...sts,
      status: {
        observedGeneration: sts.metadata.generation,
        replicas,
        readyReplicas: replicas,
        availableReplicas: replicas,
        currentReplicas: replicas,
        updatedReplicas: replicas,
        currentRevision: revision,
        updateRevision: revision,
      },
    });
  }

  async create(): Promise<void> {
    const { kube, namespace, name } = this.#s;
    const [example] = manifest("manifests/examples/postgresql-single.yaml");
    const started = performance.now();
    await kube.create({ ...example, metadata: { ...example?.metadata, name, namespace } });
    const expected = [
      "ConfigMap",
      "CronJob",
      "PersistentVolumeClaim",
      "Secret",
      "Service",
      "Service",
      "StatefulSet",
    ];
    await this.#until(
      "every child to exist",
      async () => (await this.children()).map((c) => c.split("/")[0]).join() === expected.join(),
    );
    this.#s.timings.createToAllChildrenMs = Math.round(performance.now() - started);
    await this.#until("phase Creating", this.#phase("Creating"));
    const sts = await this.statefulSet();
    expect(sts.metadata.ownerReferences[0]).toMatchObject({ kind: "Database", name, controller: true });
  }

  async becomeRunning(): Promise<Obj> {
    const { namespace, name } = this.#s;
    const started = performance.now();
    await this.#reportReady();
    const db = await this.#until("phase Running", this.#phase("Running"));
    this.#s.timings.readyToRunningMs = Math.round(performance.now() - started);
    expect(db.status).toMatchObject({
      ready: true,
      readyReplicas: 1,
      primaryEndpoint: `${name}-db-primary.${namespace}.svc.cluster.local:5432`,
      secretName: `${name}-db-credentials`,
    });
    return db;
  }

  async scaleToThree(): Promise<void> {
    const { namespace, name } = this.#s;
    await this.#patchSpec({ replicas: 3 });
    await this.#until("a readonly Service and a PDB", async () => {
      const names = await this.children();
      return (
        names.includes(`Service/${name}-db-readonly`) && names.includes(`PodDisruptionBudget/${name}-db`)
      );
    });
    await this.#until("the StatefulSet scaled", async () => (await this.statefulSet()).spec.replicas === 3);
    await this.#until("phase Upgrading", this.#phase("Upgrading"));
    await this.#reportReady();
    const db = await this.#until("phase Running", this.#phase("Running"));
    expect(db.status).toMatchObject({
      readyReplicas: 3,
      replicaEndpoint: `${name}-db-readonly.${namespace}.svc.cluster.local:5432`,
    });
  }

  async minorUpgrade(): Promise<void> {
    await this.#patchSpec({ version: "16.4" });
    await this.#until(
      "the new image",
      async () => (await this.statefulSet()).spec.template.spec.containers[0].image === "postgres:16.4",
    );
    await this.#until("phase Upgrading", this.#phase("Upgrading"));
    await this.#reportReady();
    await this.#until("phase Running", this.#phase("Running"));
  }

  async majorUpgradeRefused(): Promise<void> {
    await this.#patchSpec({ version: "17" });
    const db = await this.#until("phase Failed", this.#phase("Failed"));
    expect(db.status.message).toContain("16.4 -> 17");
    expect((await this.statefulSet()).spec.template.spec.containers[0].image).toBe("postgres:16.4");
    await this.#patchSpec({ version: "16.4" });
    await this.#until("phase Running", this.#phase("Running"));
  }

  async brokenSpecKeepsEverything(): Promise<void> {
    const before = await this.children(true);
    // Passes the CRD's pattern, fails the hook's range check: only the hook can catch it.
    await this.#patchSpec({ backup: { schedule: "61 2 * * *" } });
    const db = await this.#until("phase Failed", this.#phase("Failed"));
    expect(db.status.message).toContain("spec.backup.schedule");
    expect(await this.children(true)).toEqual(before);
    await this.#patchSpec({ backup: { schedule: "0 2 * * *" } });
    await this.#until("phase Running", this.#phase("Running"));
  }

  /** What the Job controller writes when the final backup succeeded. */
  async #reportJobSucceeded(): Promise<void> {
    const { kube, namespace, name } = this.#s;
    const job = await kube.request(
      "GET",
      `/apis/batch/v1/namespaces/${namespace}/jobs/${name}-db-final-backup`,
    );
    const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    const condition = (type: string) => ({
      type,
      status: "True",
      lastProbeTime: now,
      lastTransitionTime: now,
    });
    await kube.replaceStatus({
      ...job,
      status: {
        startTime: now,
        completionTime: now,
        succeeded: 1,
        conditions: [condition("SuccessCriteriaMet"), condition("Complete")],
      },
    });
  }

  async deleteWithFinalBackup(): Promise<void> {
    const { kube, namespace, name } = this.#s;
    const before = await this.children();
    await kube.request("DELETE", this.#databasePath);
    await this.#until("the final backup Job", async () =>
      (await this.children()).includes(`Job/${name}-db-final-backup`),
    );
    await this.#until("phase Deleting", async () => (await this.database()).status?.phase === "Deleting");
    expect(await this.children()).toEqual([...before, `Job/${name}-db-final-backup`].sort());
    await this.#reportJobSucceeded();
    const gone = { apiVersion: "dbhooks.io/v1alpha1", kind: "Database", metadata: { name, namespace } };
    await this.#until("the Database to be gone", async () => (await kube.get(gone)) === undefined);
    await this.#until(
      "the garbage collector to remove every child",
      async () => (await this.children()).length === 0,
    );
  }
}
