// Status, computed only from what is observed (plus the previous status, for transition times and for
// telling a Database that never ran from one that ran and lost replicas).
import type { StatefulSet } from "kubernetes-types/apps/v1.js";
import type { CronJob } from "kubernetes-types/batch/v1.js";
import type { Service } from "kubernetes-types/core/v1.js";
import { type Condition, condition } from "../../metacontroller/conditions.js";
import type { Observed } from "../../metacontroller/observed.js";
import { CHILD_KINDS } from "./kinds.js";
import { type ChildNames, serviceEndpoint } from "./names.js";

export type Phase = "Pending" | "Creating" | "Running" | "Upgrading" | "Degraded" | "Failed" | "Deleting";
/** Something that stops the spec from being applied as written. */
export interface Problem {
  readonly reason: "InvalidSpec" | "MajorVersionChangeRefused" | "EngineChangeRefused";
  readonly message: string;
}

export interface StatusInput {
  readonly namespace: string;
  readonly generation: number;
  readonly names: ChildNames;
  readonly observed: Observed;
  readonly previous: Record<string, unknown>;
  readonly now: Date;
  /** What the spec asks for, when it could be read. */
  readonly desired?: { readonly replicas: number; readonly image: string; readonly backups: boolean };
  readonly problem?: Problem;
  /** Set while the finalize hook runs: the phase is Deleting with this message. */
  readonly deleting?: string;
}

interface Rollout {
  readonly ready: number;
  readonly updated: number;
  readonly complete: boolean;
  readonly inProgress: boolean;
}

function rollout(sts: StatefulSet, desired: { replicas: number; image: string }): Rollout {
  const status = sts.status;
  const ready = status?.readyReplicas ?? 0;
  const updated = status?.updatedReplicas ?? 0;
  const specMatches =
    sts.spec?.replicas === desired.replicas &&
    sts.spec?.template?.spec?.containers?.[0]?.image === desired.image;
  const generationSeen = (status?.observedGeneration ?? 0) >= (sts.metadata?.generation ?? 0);
  const revisionsMatch = !status?.updateRevision || status.currentRevision === status.updateRevision;
  const allCreated = (status?.replicas ?? 0) >= desired.replicas;
  const inProgress = !(specMatches && generationSeen && revisionsMatch && allCreated);
  return { ready, updated, inProgress, complete: !inProgress && ready >= desired.replicas };
}

function wasUp(previous: Record<string, unknown>): boolean {
  const phase = previous.phase;
  if (phase === "Running" || phase === "Upgrading" || phase === "Degraded") return true;
  return phase === "Failed" && Number(previous.readyReplicas) > 0;
}

interface PhaseAndMessage {
  readonly phase: Phase;
  readonly reason: string;
  readonly message: string;
}

function phaseOf(input: StatusInput, sts: StatefulSet | undefined): PhaseAndMessage {
  if (input.deleting !== undefined) return { phase: "Deleting", reason: "Deleting", message: input.deleting };
  if (input.problem) return { phase: "Failed", reason: input.problem.reason, message: input.problem.message };
  const desired = input.desired;
  if (!sts || !desired)
    return { phase: "Pending", reason: "Pending", message: "waiting for the StatefulSet to be created" };
  const r = rollout(sts, desired);
  const counts = `${r.ready}/${desired.replicas} replicas ready`;
  if (r.complete)
    return { phase: "Running", reason: "AllReplicasReady", message: `${counts}, running ${desired.image}` };
  if (!wasUp(input.previous)) return { phase: "Creating", reason: "Creating", message: counts };
  if (r.inProgress) {
    return {
      phase: "Upgrading",
      reason: "RollingUpdate",
      message: `rolling out ${desired.image} with ${desired.replicas} replicas: ${r.updated} updated, ${counts}`,
    };
  }
  return { phase: "Degraded", reason: "ReplicasNotReady", message: counts };
}

function endpointOf(service: Service | undefined, namespace: string): string | undefined {
  const port = service?.spec?.ports?.[0]?.port;
  const name = service?.metadata?.name;
  return name && port ? serviceEndpoint(name, namespace, port) : undefined;
}

function backupCondition(input: StatusInput, cronJob: CronJob | undefined): Condition | undefined {
  if (!cronJob) {
    if (!input.desired?.backups) return undefined;
    return condition(input, {
      type: "BackupSucceeded",
      status: "Unknown",
      reason: "NoBackupYet",
      message: "the backup CronJob does not exist yet",
    });
  }
  const scheduled = cronJob.status?.lastScheduleTime;
  const succeeded = cronJob.status?.lastSuccessfulTime;
  if (!scheduled && !succeeded) {
    return condition(input, {
      type: "BackupSucceeded",
      status: "Unknown",
      reason: "NoBackupYet",
      message: "no backup has been scheduled yet",
    });
  }
  if (succeeded && (!scheduled || succeeded >= scheduled)) {
    return condition(input, {
      type: "BackupSucceeded",
      status: "True",
      reason: "BackupSucceeded",
      message: `last backup succeeded at ${succeeded}`,
    });
  }
  if ((cronJob.status?.active ?? []).length > 0) {
    return condition(input, {
      type: "BackupSucceeded",
      status: "Unknown",
      reason: "BackupRunning",
      message: `backup scheduled at ${scheduled} is running`,
    });
  }
  return condition(input, {
    type: "BackupSucceeded",
    status: "False",
    reason: "BackupFailed",
    message: `backup scheduled at ${scheduled} did not succeed${succeeded ? `; last success at ${succeeded}` : ""}; see the Jobs of CronJob ${cronJob.metadata?.name}`,
  });
}

export function databaseStatus(input: StatusInput): Record<string, unknown> {
  const { observed, names, namespace } = input;
  const sts = observed.get<StatefulSet>(CHILD_KINDS.statefulSet, names.statefulSet);
  const cronJob = observed.get<CronJob>(CHILD_KINDS.cronJob, names.backupCronJob);
  const state = phaseOf(input, sts);
  const ready = state.phase === "Running";
  const primaryEndpoint = endpointOf(
    observed.get<Service>(CHILD_KINDS.service, names.primaryService),
    namespace,
  );
  const replicaEndpoint = endpointOf(
    observed.get<Service>(CHILD_KINDS.service, names.readonlyService),
    namespace,
  );
  const secretName = observed.get(CHILD_KINDS.secret, names.secret) ? names.secret : undefined;
  const lastBackup =
    cronJob?.status?.lastSuccessfulTime ??
    (typeof input.previous.lastBackup === "string" ? input.previous.lastBackup : undefined);
  const backup = backupCondition(input, cronJob);
  const conditions = [
    condition(input, {
      type: "Ready",
      status: ready ? "True" : "False",
      reason: state.reason,
      message: state.message,
    }),
    ...(backup ? [backup] : []),
  ];
  return {
    phase: state.phase,
    ready,
    replicas: input.desired?.replicas ?? sts?.spec?.replicas ?? 0,
    readyReplicas: sts?.status?.readyReplicas ?? 0,
    ...(primaryEndpoint ? { primaryEndpoint } : {}),
    ...(replicaEndpoint ? { replicaEndpoint } : {}),
    ...(secretName ? { secretName } : {}),
    ...(lastBackup ? { lastBackup } : {}),
    message: state.message,
    conditions,
    observedGeneration: input.generation,
  };
}
