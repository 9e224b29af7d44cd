import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../src/metacontroller/types.js";
import type { Loose } from "../support/database.js";
import {
  childOf,
  context,
  database,
  observedAs,
  POSTGRES,
  parent,
  rolledOut,
  sync,
} from "../support/database.js";

const statusOf = (r: { status: Record<string, unknown> }) => r.status as Loose;
const names = (children: readonly KubeObject[]) =>
  children.map((c) => `${c.kind}/${c.metadata?.name}`).sort();

describe("credentials Secret", () => {
  it("derives the same passwords for the same parent uid, different ones for another uid", () => {
    const a = childOf(sync({ parent: parent(POSTGRES), children: {} }).children, "Secret") as Loose;
    const b = childOf(sync({ parent: parent(POSTGRES), children: {} }).children, "Secret") as Loose;
    const other = childOf(
      sync({ parent: parent(POSTGRES, { metadata: { uid: "another-uid" } }), children: {} }).children,
      "Secret",
    ) as Loose;
    expect(a.data.password).toBe(b.data.password);
    expect(other.data.password).not.toBe(a.data.password);
    const password = Buffer.from(a.data.password, "base64").toString();
    expect(password).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(Buffer.from(a.data.uri, "base64").toString()).toBe(
      `postgresql://app:${password}@orders-db-primary.shop.svc.cluster.local:5432/app`,
    );
    expect(a.stringData).toBeUndefined();
  });

  it("depends on the service's key", () => {
    const request = { parent: parent(POSTGRES), children: {} };
    const a = childOf(database.sync(request, context).children, "Secret") as Loose;
    const b = childOf(
      database.sync(request, { ...context, credentialsKey: new Uint8Array(32) }).children,
      "Secret",
    ) as Loose;
    expect(a.data.password).not.toBe(b.data.password);
  });

  it("keeps an observed Secret's data verbatim, whatever the spec says now", () => {
    const first = sync({ parent: parent(POSTGRES), children: {} });
    const children = observedAs(first.children, (o) => {
      if (o.kind === "Secret")
        o.data = { password: Buffer.from("chosen-by-a-human").toString("base64"), extra: "eA==" };
    });
    const next = sync({ parent: parent({ ...POSTGRES, replicas: 3 }), children });
    expect((childOf(next.children, "Secret") as Loose).data).toEqual({
      extra: "eA==",
      password: Buffer.from("chosen-by-a-human").toString("base64"),
    });
  });

  it("gives every engine its extra secrets", () => {
    const mysql = childOf(
      sync({ parent: parent({ engine: "mysql", version: "8.4", storage: { size: "1Gi" } }), children: {} })
        .children,
      "Secret",
    ) as Loose;
    expect(Object.keys(mysql.data)).toEqual(
      expect.arrayContaining(["root-password", "replication-password"]),
    );
    expect(mysql.data["root-password"]).not.toBe(mysql.data.password);
  });
});

describe("bad input never costs data", () => {
  const running = sync({ parent: parent({ ...POSTGRES, replicas: 3 }), children: {} });
  const observed = observedAs(running.children, (o) => rolledOut(o));

  it.each([
    ["replicas out of range", { ...POSTGRES, replicas: 0 }, "spec.replicas"],
    ["unknown engine", { ...POSTGRES, engine: "oracle" }, "spec.engine"],
    ["bad storage size", { ...POSTGRES, storage: { size: "10GB" } }, "spec.storage.size"],
    ["missing version", { engine: "postgresql", storage: { size: "1Gi" } }, "spec.version"],
    ["bad cron range", { ...POSTGRES, backup: { schedule: "61 * * * *" } }, "spec.backup.schedule"],
    ["unsupported version", { ...POSTGRES, version: "9.6" }, "spec.version"],
    ["spec is not an object", "postgres please", "spec"],
  ])("%s: Failed, Ready=False, message names %s's field, every observed child kept", (_case, spec, field) => {
    const answer = sync({ parent: parent(spec), children: observed });
    const status = statusOf(answer);
    expect(status.phase).toBe("Failed");
    expect(status.ready).toBe(false);
    expect(status.message).toContain(field);
    expect(status.conditions[0]).toMatchObject({ type: "Ready", status: "False", reason: "InvalidSpec" });
    expect(names(answer.children)).toEqual(names(running.children));
  });

  it("returns each kept child exactly as Metacontroller last applied it, so nothing changes", () => {
    const answer = sync({ parent: parent({ ...POSTGRES, replicas: 99 }), children: observed });
    for (const child of running.children) {
      expect(childOf(answer.children, String(child.kind), child.metadata?.name)).toEqual(child);
    }
  });

  it("strips server-set fields from a kept child that has no last-applied annotation", () => {
    const children = observedAs(running.children, (o) => {
      delete o.metadata?.annotations;
      (o.metadata as Loose).ownerReferences = [{ uid: "x" }];
      o.status = { anything: true };
    });
    const answer = sync({ parent: parent({ ...POSTGRES, replicas: 99 }), children });
    for (const child of answer.children as Loose[]) {
      expect(child.status).toBeUndefined();
      expect(child.metadata.uid).toBeUndefined();
      expect(child.metadata.resourceVersion).toBeUndefined();
      expect(child.metadata.ownerReferences).toBeUndefined();
      expect(child.metadata.name).toBeTruthy();
    }
    expect(answer.children).toHaveLength(running.children.length);
  });

  it("refuses an engine switch and keeps the running children", () => {
    const answer = sync({
      parent: parent({ ...POSTGRES, engine: "mysql", version: "8.4" }),
      children: observed,
    });
    expect(statusOf(answer)).toMatchObject({ phase: "Failed", readyReplicas: 3 });
    expect(statusOf(answer).message).toContain("spec.engine");
    expect(names(answer.children)).toEqual(names(running.children));
    expect((childOf(answer.children, "StatefulSet") as Loose).spec.template.spec.containers[0].image).toBe(
      "postgres:16",
    );
  });

  it("refuses a major upgrade: keeps the running image, says why and what to do", () => {
    const answer = sync({ parent: parent({ ...POSTGRES, version: "17", replicas: 3 }), children: observed });
    const status = statusOf(answer);
    expect(status.phase).toBe("Failed");
    expect(status.conditions[0]).toMatchObject({ reason: "MajorVersionChangeRefused", status: "False" });
    expect(status.message).toMatch(/16 -> 17.*refused.*postgres:16.*back to a 16\.x/s);
    expect((childOf(answer.children, "StatefulSet") as Loose).spec.template.spec.containers[0].image).toBe(
      "postgres:16",
    );
  });

  it("rolls a minor version change", () => {
    const answer = sync({
      parent: parent({ ...POSTGRES, version: "16.6", replicas: 3 }),
      children: observed,
    });
    expect((childOf(answer.children, "StatefulSet") as Loose).spec.template.spec.containers[0].image).toBe(
      "postgres:16.6",
    );
    expect(statusOf(answer).phase).not.toBe("Failed");
  });
});

describe("children", () => {
  it("names and labels every child after the Database, in its namespace", () => {
    const answer = sync({ parent: parent({ ...POSTGRES, replicas: 3 }), children: {} });
    expect(names(answer.children)).toEqual([
      "ConfigMap/orders-db-config",
      "CronJob/orders-db-backup",
      "PersistentVolumeClaim/orders-db-backup",
      "PodDisruptionBudget/orders-db",
      "Secret/orders-db-credentials",
      "Service/orders-db-headless",
      "Service/orders-db-primary",
      "Service/orders-db-readonly",
      "StatefulSet/orders-db",
    ]);
    for (const child of answer.children) {
      expect(child.metadata?.namespace).toBe("shop");
      expect(child.metadata?.labels).toMatchObject({
        "app.kubernetes.io/name": "postgresql",
        "app.kubernetes.io/instance": "orders",
        "app.kubernetes.io/managed-by": "dbhooks",
      });
    }
  });

  it("selects the StatefulSet's pods with its Services and PDB, and never the backup pods", () => {
    const answer = sync({ parent: parent({ ...POSTGRES, replicas: 3 }), children: {} });
    const sts = childOf(answer.children, "StatefulSet") as Loose;
    const podLabels = sts.spec.template.metadata.labels;
    const backupPodLabels = (childOf(answer.children, "CronJob") as Loose).spec.jobTemplate.spec.template
      .metadata.labels;
    const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
      Object.entries(selector).every(([k, v]) => labels[k] === v);
    expect(matches(sts.spec.selector.matchLabels, podLabels)).toBe(true);
    for (const name of ["orders-db-headless", "orders-db-readonly"]) {
      const selector = (childOf(answer.children, "Service", name) as Loose).spec.selector;
      expect(matches(selector, podLabels)).toBe(true);
      expect(matches(selector, backupPodLabels)).toBe(false);
    }
    const primary = (childOf(answer.children, "Service", "orders-db-primary") as Loose).spec.selector;
    expect(primary["statefulset.kubernetes.io/pod-name"]).toBe("orders-db-0");
    const pdb = (childOf(answer.children, "PodDisruptionBudget") as Loose).spec.selector.matchLabels;
    expect(matches(pdb, podLabels) && !matches(pdb, backupPodLabels)).toBe(true);
  });

  it("takes env from the Secret, never a literal password", () => {
    for (const spec of [
      POSTGRES,
      { engine: "mysql", version: "8.4", storage: { size: "1Gi" } },
      { engine: "mongodb", version: "7.0", storage: { size: "1Gi" } },
    ]) {
      const answer = sync({ parent: parent(spec), children: {} });
      const secret = childOf(answer.children, "Secret") as Loose;
      const secretValues = Object.values(secret.data as Record<string, string>).map((v) =>
        Buffer.from(v, "base64").toString(),
      );
      const text = JSON.stringify(answer.children.filter((c) => c.kind !== "Secret"));
      for (const value of secretValues.filter((v) => v.length >= 16)) expect(text).not.toContain(value);
      const env = (childOf(answer.children, "StatefulSet") as Loose).spec.template.spec.containers[0]
        .env as Loose[];
      expect(
        env
          .filter((e) => /PASSWORD/.test(e.name))
          .every((e) => e.valueFrom?.secretKeyRef?.name === "orders-db-credentials"),
      ).toBe(true);
    }
  });

  it("rolls pods when the config changes: the checksum follows the size", () => {
    const checksum = (size: string) =>
      (
        childOf(
          sync({ parent: parent({ ...POSTGRES, size }), children: {} }).children,
          "StatefulSet",
        ) as Loose
      ).spec.template.metadata.annotations["dbhooks.io/config-checksum"];
    expect(checksum("small")).toMatch(/^[0-9a-f]{64}$/);
    expect(checksum("small")).toBe(checksum("small"));
    expect(checksum("small")).not.toBe(checksum("large"));
  });

  it("tunes the engine from the memory limit, overridden by spec.resources", () => {
    const conf = (spec: object) =>
      (childOf(sync({ parent: parent(spec), children: {} }).children, "ConfigMap") as Loose).data;
    expect(conf({ ...POSTGRES, size: "large" })["postgresql.conf"]).toContain("shared_buffers = 768MB");
    expect(conf({ ...POSTGRES, resources: { limits: { memory: "4Gi" } } })["postgresql.conf"]).toContain(
      "shared_buffers = 1024MB",
    );
    expect(
      conf({ engine: "mysql", version: "8.4", size: "medium", storage: { size: "1Gi" } })["dbhooks.cnf"],
    ).toContain("innodb_buffer_pool_size = 768M");
    expect(
      conf({ engine: "mongodb", version: "8.0", size: "large", storage: { size: "1Gi" } })["mongod.conf"],
    ).toContain("cacheSizeGB: 1");
  });

  it("never asks for more than it limits", () => {
    const sts = childOf(
      sync({
        parent: parent({ ...POSTGRES, resources: { requests: { memory: "4Gi", cpu: "2" } } }),
        children: {},
      }).children,
      "StatefulSet",
    ) as Loose;
    expect(sts.spec.template.spec.containers[0].resources).toEqual({
      requests: { cpu: "2", memory: "4Gi" },
      limits: { cpu: "2", memory: "4Gi" },
    });
  });

  it("maps deletionPolicy onto the StatefulSet's PVC retention", () => {
    const policy = (deletionPolicy: string) =>
      (
        childOf(
          sync({ parent: parent({ ...POSTGRES, deletionPolicy }), children: {} }).children,
          "StatefulSet",
        ) as Loose
      ).spec.persistentVolumeClaimRetentionPolicy;
    expect(policy("Retain")).toEqual({ whenDeleted: "Retain", whenScaled: "Retain" });
    expect(policy("Delete")).toEqual({ whenDeleted: "Delete", whenScaled: "Retain" });
  });

  it("mounts PostgreSQL 18's data where its image expects it", () => {
    const container = (version: string) =>
      (
        childOf(
          sync({ parent: parent({ ...POSTGRES, version }), children: {} }).children,
          "StatefulSet",
        ) as Loose
      ).spec.template.spec.containers[0];
    expect(container("17").volumeMounts[0].mountPath).toBe("/var/lib/postgresql/data");
    expect(container("17").env).toContainEqual({ name: "PGDATA", value: "/var/lib/postgresql/data/pgdata" });
    expect(container("18").volumeMounts[0].mountPath).toBe("/var/lib/postgresql");
    expect(container("18").env.find((e: Loose) => e.name === "PGDATA")).toBeUndefined();
  });

  it("backs up to the claim the user names, and keeps a dumps volume once it exists", () => {
    const withClaim = sync({ parent: parent({ ...POSTGRES, backup: { claimName: "dumps" } }), children: {} });
    expect(withClaim.children.find((c) => c.kind === "PersistentVolumeClaim")).toBeUndefined();
    const volumes = (childOf(withClaim.children, "CronJob") as Loose).spec.jobTemplate.spec.template.spec
      .volumes;
    expect(volumes).toEqual([{ name: "backups", persistentVolumeClaim: { claimName: "dumps" } }]);

    const first = sync({ parent: parent(POSTGRES), children: {} });
    const disabled = sync({
      parent: parent({ ...POSTGRES, backup: { enabled: false } }),
      children: observedAs(first.children),
    });
    expect(disabled.children.find((c) => c.kind === "CronJob")).toBeUndefined();
    expect(childOf(disabled.children, "PersistentVolumeClaim", "orders-db-backup")).toBeDefined();
  });
});

describe("status", () => {
  const desired = sync({ parent: parent({ ...POSTGRES, replicas: 3 }), children: {} }).children;

  it("goes Pending -> Creating -> Running as the StatefulSet reports ready", () => {
    const pending = sync({ parent: parent({ ...POSTGRES, replicas: 3 }), children: {} });
    expect(statusOf(pending).phase).toBe("Pending");
    const creating = sync({
      parent: parent({ ...POSTGRES, replicas: 3 }, { status: pending.status }),
      children: observedAs(desired, (o) => rolledOut(o, 1)),
    });
    expect(statusOf(creating)).toMatchObject({ phase: "Creating", readyReplicas: 1, ready: false });
    const running = sync({
      parent: parent({ ...POSTGRES, replicas: 3 }, { status: creating.status }),
      children: observedAs(desired, (o) => rolledOut(o)),
    });
    expect(statusOf(running)).toMatchObject({
      phase: "Running",
      ready: true,
      replicas: 3,
      readyReplicas: 3,
      primaryEndpoint: "orders-db-primary.shop.svc.cluster.local:5432",
      replicaEndpoint: "orders-db-readonly.shop.svc.cluster.local:5432",
      secretName: "orders-db-credentials",
    });
  });

  it("becomes Degraded when a Running Database loses a ready replica, not Creating", () => {
    const running = sync({
      parent: parent({ ...POSTGRES, replicas: 3 }),
      children: observedAs(desired, (o) => rolledOut(o)),
    });
    const degraded = sync({
      parent: parent({ ...POSTGRES, replicas: 3 }, { status: running.status }),
      children: observedAs(desired, (o) => rolledOut(o, 2)),
    });
    expect(statusOf(degraded)).toMatchObject({ phase: "Degraded", readyReplicas: 2 });
  });

  it("is Upgrading while the observed StatefulSet runs another image", () => {
    const running = sync({
      parent: parent({ ...POSTGRES, replicas: 3 }),
      children: observedAs(desired, (o) => rolledOut(o)),
    });
    const upgrading = sync({
      parent: parent({ ...POSTGRES, version: "16.6", replicas: 3 }, { status: running.status }),
      children: observedAs(desired, (o) => rolledOut(o)),
    });
    expect(statusOf(upgrading).phase).toBe("Upgrading");
  });

  it("moves a condition's lastTransitionTime only when its status changes", () => {
    const t1 = new Date("2026-03-01T12:00:00Z");
    const t2 = new Date("2026-03-01T12:05:00Z");
    const t3 = new Date("2026-03-01T12:10:00Z");
    const ready = observedAs(desired, (o) => rolledOut(o));
    const a = sync({ parent: parent({ ...POSTGRES, replicas: 3 }), children: ready }, t1);
    const b = sync(
      { parent: parent({ ...POSTGRES, replicas: 3 }, { status: a.status }), children: ready },
      t2,
    );
    const c = sync(
      {
        parent: parent({ ...POSTGRES, replicas: 3 }, { status: b.status }),
        children: observedAs(desired, (o) => rolledOut(o, 2)),
      },
      t3,
    );
    const readyOf = (s: { status: Record<string, unknown> }) =>
      statusOf(s).conditions.find((x: Loose) => x.type === "Ready");
    expect(readyOf(a)).toMatchObject({
      status: "True",
      lastTransitionTime: "2026-03-01T12:00:00Z",
      observedGeneration: 1,
    });
    expect(readyOf(b)).toMatchObject({ status: "True", lastTransitionTime: "2026-03-01T12:00:00Z" });
    expect(readyOf(c)).toMatchObject({ status: "False", lastTransitionTime: "2026-03-01T12:10:00Z" });
  });

  it("reports backups from the CronJob: success, failure, running", () => {
    const backup = (status: Loose) => {
      const answer = sync({
        parent: parent(POSTGRES),
        children: observedAs(sync({ parent: parent(POSTGRES), children: {} }).children, (o) => {
          if (o.kind === "CronJob") o.status = status;
        }),
      });
      return {
        condition: statusOf(answer).conditions.find((c: Loose) => c.type === "BackupSucceeded"),
        lastBackup: statusOf(answer).lastBackup,
      };
    };
    expect(
      backup({ lastScheduleTime: "2026-03-01T02:00:00Z", lastSuccessfulTime: "2026-03-01T02:01:00Z" }),
    ).toMatchObject({
      condition: { status: "True" },
      lastBackup: "2026-03-01T02:01:00Z",
    });
    expect(
      backup({ lastScheduleTime: "2026-03-02T02:00:00Z", lastSuccessfulTime: "2026-03-01T02:01:00Z" })
        .condition,
    ).toMatchObject({ status: "False", reason: "BackupFailed" });
    expect(
      backup({ lastScheduleTime: "2026-03-02T02:00:00Z", active: [{ name: "j" }] }).condition,
    ).toMatchObject({ status: "Unknown", reason: "BackupRunning" });
    expect(backup({}).condition).toMatchObject({ status: "Unknown", reason: "NoBackupYet" });
  });

  it("is valid against the CRD's status schema in every phase the fixtures reach", async () => {
    const { loadDatabaseSchema } = await import("../../src/resources/database/index.js");
    const schema = loadDatabaseSchema();
    const { fixtures } = await import("../support/fixtures.js");
    for (const fixture of fixtures().filter((f) => f.resource === "database")) {
      const hook = fixture.hook === "finalize" ? database.finalize : database.sync;
      expect(schema.validateStatus(hook?.(fixture.request, context).status), fixture.name).toEqual([]);
    }
  });
});

describe("determinism", () => {
  it("answers byte-identically for the same input, whatever the key order of the request", () => {
    const request = { parent: parent({ ...POSTGRES, replicas: 3 }), children: {} };
    const once = JSON.stringify(sync(request));
    const reordered = JSON.parse(JSON.stringify(request), (_k, v) =>
      v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
    );
    expect(JSON.stringify(sync(request))).toBe(once);
    expect(JSON.stringify(sync(reordered))).toBe(once);
  });

  it("does not modify the request", () => {
    const request = {
      parent: parent({ engine: "postgresql", version: "16", storage: { size: "1Gi" } }),
      children: {},
    };
    const before = JSON.stringify(request);
    sync(request);
    expect(JSON.stringify(request)).toBe(before);
  });

  it("converges: the desired children fed back as observed give the same children", () => {
    const first = sync({ parent: parent({ ...POSTGRES, replicas: 3 }), children: {} });
    const second = sync({
      parent: parent({ ...POSTGRES, replicas: 3 }, { status: first.status }),
      children: observedAs(first.children),
    });
    expect(second.children).toEqual(first.children);
  });

  it("understands v1 (name) and v2 (namespace/name) child keys alike", () => {
    const desired = sync({ parent: parent({ ...POSTGRES, replicas: 3 }), children: {} }).children;
    const v1 = observedAs(desired, (o) => rolledOut(o));
    const v2 = Object.fromEntries(
      Object.entries(v1).map(([kind, group]) => [
        kind,
        Object.fromEntries(Object.values(group).map((o) => [`shop/${o.metadata?.name}`, o])),
      ]),
    );
    expect(JSON.stringify(sync({ parent: parent({ ...POSTGRES, replicas: 3 }), children: v2 }))).toBe(
      JSON.stringify(sync({ parent: parent({ ...POSTGRES, replicas: 3 }), children: v1 })),
    );
  });
});
