// The lifecycle scenario of a Database, written once and driven by either the test's own driver or the
// real Metacontroller: each step changes something, then waits (through `until`) for what must follow.
import { expect } from "vitest";
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

const KINDS = [
  ["v1", "Secret"],
  ["v1", "ConfigMap"],
  ["v1", "Service"],
  ["apps/v1", "StatefulSet"],
  ["policy/v1", "PodDisruptionBudget"],
  ["v1", "PersistentVolumeClaim"],
  ["batch/v1", "CronJob"],
  ["batch/v1", "Job"],
] as const;

export function steps(s: Scenario) {
  const { kube, namespace, name, reconciler } = s;
  const databasePath = `/apis/dbhooks.io/v1alpha1/namespaces/${namespace}/databases/${name}`;
  const database = () => kube.request("GET", databasePath);
  const statefulSet = () =>
    kube.request("GET", `/apis/apps/v1/namespaces/${namespace}/statefulsets/${name}-db`);
  const phase = (wanted: string) => async () => {
    const db = await database();
    return db.status?.phase === wanted && db.status.observedGeneration === db.metadata.generation
      ? db
      : undefined;
  };
  const patchSpec = (spec: Obj) =>
    kube.request("PATCH", databasePath, { spec }, "application/merge-patch+json");

  /** Every child of the Database, as `Kind/name@resourceVersion`. */
  async function children(withVersions = false): Promise<string[]> {
    const out: string[] = [];
    for (const [apiVersion, kind] of KINDS) {
      for (const o of await kube.list(apiVersion, kind, namespace, `app.kubernetes.io/instance=${name}`)) {
        if ((o.metadata.ownerReferences ?? []).some((r: Obj) => r.kind === "Database" && r.controller)) {
          out.push(`${kind}/${o.metadata.name}${withVersions ? `@${o.metadata.resourceVersion}` : ""}`);
        }
      }
    }
    return out.sort();
  }

  /** What the StatefulSet controller writes once every replica of the current spec is ready. */
  async function reportReady(): Promise<void> {
    const sts = await statefulSet();
    const replicas = sts.spec.replicas as number;
    const revision = `${name}-db-${sts.metadata.generation}`;
    await kube.replaceStatus({
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

  return {
    database,
    statefulSet,
    children,

    async create(): Promise<void> {
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
      await reconciler.until("every child to exist", async () =>
        (await children()).map((c) => c.split("/")[0]).join() === expected.join() ? true : undefined,
      );
      s.timings.createToAllChildrenMs = Math.round(performance.now() - started);
      await reconciler.until("phase Creating", phase("Creating"));
      const sts = await statefulSet();
      expect(sts.metadata.ownerReferences[0]).toMatchObject({ kind: "Database", name, controller: true });
    },

    async becomeRunning(): Promise<Obj> {
      const started = performance.now();
      await reportReady();
      const db = await reconciler.until("phase Running", phase("Running"));
      s.timings.readyToRunningMs = Math.round(performance.now() - started);
      expect(db.status).toMatchObject({
        ready: true,
        readyReplicas: 1,
        primaryEndpoint: `${name}-db-primary.${namespace}.svc.cluster.local:5432`,
        secretName: `${name}-db-credentials`,
      });
      return db;
    },

    async scaleToThree(): Promise<void> {
      await patchSpec({ replicas: 3 });
      await reconciler.until("a readonly Service and a PDB", async () => {
        const names = await children();
        return (
          names.includes(`Service/${name}-db-readonly`) && names.includes(`PodDisruptionBudget/${name}-db`)
        );
      });
      await reconciler.until("the StatefulSet scaled", async () =>
        (await statefulSet()).spec.replicas === 3 ? true : undefined,
      );
      await reconciler.until("phase Upgrading", phase("Upgrading"));
      await reportReady();
      const db = await reconciler.until("phase Running", phase("Running"));
      expect(db.status).toMatchObject({
        readyReplicas: 3,
        replicaEndpoint: `${name}-db-readonly.${namespace}.svc.cluster.local:5432`,
      });
    },

    async minorUpgrade(): Promise<void> {
      await patchSpec({ version: "16.4" });
      await reconciler.until(
        "the new image",
        async () => (await statefulSet()).spec.template.spec.containers[0].image === "postgres:16.4",
      );
      await reconciler.until("phase Upgrading", phase("Upgrading"));
      await reportReady();
      await reconciler.until("phase Running", phase("Running"));
    },

    async majorUpgradeRefused(): Promise<void> {
      await patchSpec({ version: "17" });
      const db = await reconciler.until("phase Failed", phase("Failed"));
      expect(db.status.message).toContain("16.4 -> 17");
      expect((await statefulSet()).spec.template.spec.containers[0].image).toBe("postgres:16.4");
      await patchSpec({ version: "16.4" });
      await reconciler.until("phase Running", phase("Running"));
    },

    async brokenSpecKeepsEverything(): Promise<void> {
      const before = await children(true);
      // Passes the CRD's pattern, fails the hook's range check: only the hook can catch it.
      await patchSpec({ backup: { schedule: "61 2 * * *" } });
      const db = await reconciler.until("phase Failed", phase("Failed"));
      expect(db.status.message).toContain("spec.backup.schedule");
      expect(await children(true)).toEqual(before);
      await patchSpec({ backup: { schedule: "0 2 * * *" } });
      await reconciler.until("phase Running", phase("Running"));
    },

    async deleteWithFinalBackup(): Promise<void> {
      const before = await children();
      await kube.request("DELETE", databasePath);
      await reconciler.until("the final backup Job", async () =>
        (await children()).includes(`Job/${name}-db-final-backup`),
      );
      await reconciler.until("phase Deleting", async () =>
        (await database()).status?.phase === "Deleting" ? true : undefined,
      );
      expect(await children()).toEqual([...before, `Job/${name}-db-final-backup`].sort());
      const job = await kube.request(
        "GET",
        `/apis/batch/v1/namespaces/${namespace}/jobs/${name}-db-final-backup`,
      );
      const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
      await kube.replaceStatus({
        ...job,
        status: {
          startTime: now,
          completionTime: now,
          succeeded: 1,
          conditions: [
            { type: "SuccessCriteriaMet", status: "True", lastProbeTime: now, lastTransitionTime: now },
            { type: "Complete", status: "True", lastProbeTime: now, lastTransitionTime: now },
          ],
        },
      });
      await reconciler.until(
        "the Database to be gone",
        async () =>
          (await kube.get({
            apiVersion: "dbhooks.io/v1alpha1",
            kind: "Database",
            metadata: { name, namespace },
          })) === undefined,
      );
      await reconciler.until("the garbage collector to remove every child", async () =>
        (await children()).length === 0 ? true : undefined,
      );
    },
  };
}
