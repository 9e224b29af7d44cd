// The finalize hook: keep the database up, take a last dump, and let the parent go once the dump
// succeeded, failed, or ran out of time. A finalizer must never hold a Database hostage.
import type { Job } from "kubernetes-types/batch/v1.js";
import { Observed } from "../../metacontroller/observed.js";
import type { HookContext, HookRequest, HookResponse } from "../../metacontroller/types.js";
import type { CompiledSchema } from "../../schema/crd.js";
import { finalBackupJob } from "./children/backup.js";
import { CHILD_KINDS } from "./kinds.js";
import { parseDatabase } from "./spec.js";
import { desiredChildren, keepEverything, planDatabase, statusFor } from "./sync.js";

/** How often Metacontroller should ask again while the final backup runs. */
export const FINAL_BACKUP_POLL_SECONDS = 10;

type JobOutcome = "succeeded" | "failed" | "running";

function jobOutcome(job: Job): JobOutcome {
  const conditions = job.status?.conditions ?? [];
  const has = (type: string) =>
    conditions.some((c: { type: string; status: string }) => c.type === type && c.status === "True");
  if (has("Complete") || (job.status?.succeeded ?? 0) > 0) return "succeeded";
  if (has("Failed")) return "failed";
  return "running";
}

function secondsSinceDeletion(deletionTimestamp: string | undefined, now: Date): number {
  if (!deletionTimestamp) return 0;
  const since = Date.parse(deletionTimestamp);
  return Number.isNaN(since) ? 0 : (now.getTime() - since) / 1000;
}

export function finalizeDatabase(
  schema: CompiledSchema,
  request: HookRequest,
  context: HookContext,
): HookResponse {
  const parsed = parseDatabase(request.parent, schema);
  if (!parsed.ok) {
    // Nothing sensible to back up from a spec we cannot read: keep everything and let go.
    const kept = keepEverything(
      request,
      { reason: "InvalidSpec", message: parsed.errors.join("; ") },
      context.now,
    );
    return { ...kept, finalized: true };
  }
  const observed = new Observed(request.children);
  const plan = planDatabase(parsed.database, observed);
  if (plan.kind === "keep") return { ...keepEverything(request, plan.problem, context.now), finalized: true };
  const { model } = plan;
  const children = desiredChildren(model, observed, context.credentialsKey);
  const answer = (message: string, finalized: boolean) => ({
    status: statusFor({ request, plan, observed, now: context.now, deleting: message }),
    children,
    finalized,
    ...(finalized ? {} : { resyncAfterSeconds: FINAL_BACKUP_POLL_SECONDS }),
  });
  if (!model.database.spec.backup.enabled) return answer("backups are disabled: no final backup", true);

  const observedJob = observed.get<Job>(CHILD_KINDS.job, model.names.finalBackupJob);
  children.push(finalBackupJob(model, context.finalBackupTimeoutSeconds));
  const outcome = observedJob ? jobOutcome(observedJob) : "running";
  if (outcome === "succeeded")
    return answer(`final backup Job ${model.names.finalBackupJob} succeeded`, true);
  if (outcome === "failed") {
    return answer(
      `final backup Job ${model.names.finalBackupJob} failed; the Database is released anyway`,
      true,
    );
  }
  const waited = secondsSinceDeletion(model.database.deletionTimestamp, context.now);
  if (waited >= context.finalBackupTimeoutSeconds) {
    return answer(
      `final backup did not finish within ${context.finalBackupTimeoutSeconds}s; the Database is released`,
      true,
    );
  }
  return answer(`taking a final backup (Job ${model.names.finalBackupJob})`, false);
}
