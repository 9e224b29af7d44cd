import { describe, expect, it } from "vitest";
import type { Loose } from "../support/database.js";
import { childOf, context, database, observedAs, POSTGRES, parent, rolledOut } from "../support/database.js";

const deleting = (spec: unknown, deletionTimestamp: string) =>
  parent(spec, { metadata: { name: "orders", namespace: "shop", deletionTimestamp } });

function finalize(spec: unknown, jobStatus?: object, deletedAt = "2026-03-01T11:59:00Z") {
  const p = deleting(spec, deletedAt);
  const first = database.finalize?.({ parent: p, children: {}, finalizing: true }, context);
  if (!first) throw new Error("no finalize hook");
  const children = observedAs(first.children, (o) => {
    rolledOut(o);
    if (o.kind === "Job" && jobStatus) o.status = jobStatus;
  });
  return database.finalize?.({ parent: p, children: jobStatus ? children : {}, finalizing: true }, context);
}

describe("finalize", () => {
  it("keeps the database up and starts a final backup Job, asking to be called again", () => {
    const answer = finalize(POSTGRES);
    expect(answer?.finalized).toBe(false);
    expect(answer?.resyncAfterSeconds).toBeGreaterThan(0);
    expect(answer?.status.phase).toBe("Deleting");
    for (const kind of ["StatefulSet", "Secret", "Service", "ConfigMap", "CronJob"])
      expect(childOf(answer?.children ?? [], kind)).toBeDefined();
    const job = childOf(answer?.children ?? [], "Job", "orders-db-final-backup") as Loose;
    expect(job.spec.activeDeadlineSeconds).toBe(context.finalBackupTimeoutSeconds);
    expect(job.spec.template.spec.containers[0].image).toBe("postgres:16");
  });

  it("waits while the Job runs", () => {
    expect(finalize(POSTGRES, { active: 1 })?.finalized).toBe(false);
  });

  it("lets go once the Job succeeded", () => {
    const answer = finalize(POSTGRES, { succeeded: 1, conditions: [{ type: "Complete", status: "True" }] });
    expect(answer?.finalized).toBe(true);
    expect(answer?.resyncAfterSeconds).toBeUndefined();
    expect(answer?.status.message).toContain("succeeded");
  });

  it("lets go when the Job failed: a finalizer never holds a Database hostage", () => {
    const answer = finalize(POSTGRES, { failed: 2, conditions: [{ type: "Failed", status: "True" }] });
    expect(answer?.finalized).toBe(true);
    expect(answer?.status.message).toContain("failed");
  });

  it("lets go when the timeout after deletionTimestamp has passed", () => {
    const late = finalize(POSTGRES, { active: 1 }, "2026-03-01T11:49:59Z");
    expect(late?.finalized).toBe(true);
    const inTime = finalize(POSTGRES, { active: 1 }, "2026-03-01T11:50:01Z");
    expect(inTime?.finalized).toBe(false);
  });

  it("finalizes at once when backups are disabled, without a Job", () => {
    const answer = finalize({ ...POSTGRES, backup: { enabled: false } });
    expect(answer?.finalized).toBe(true);
    expect(answer?.children.find((c) => c.kind === "Job")).toBeUndefined();
  });

  it("finalizes a Database whose spec cannot be read, keeping its children until garbage collection", () => {
    const good = database.sync({ parent: parent(POSTGRES), children: {} }, context);
    const answer = database.finalize?.(
      {
        parent: deleting({ engine: "nope" }, "2026-03-01T11:59:00Z"),
        children: observedAs(good.children),
        finalizing: true,
      },
      context,
    );
    expect(answer?.finalized).toBe(true);
    expect(answer?.children).toHaveLength(good.children.length);
  });
});
