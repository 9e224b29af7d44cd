// (Database, observed children, clock) -> desired children and status. Pure: no I/O, no clock reads.
import type { StatefulSet } from "kubernetes-types/apps/v1.js";
import type { PersistentVolumeClaim, Secret } from "kubernetes-types/core/v1.js";
import { asUnchanged, isRecord, Observed } from "../../metacontroller/observed.js";
import type {
  HookContext,
  HookRequest,
  HookResponse,
  KubeObject,
  ParentObject,
} from "../../metacontroller/types.js";
import type { CompiledSchema } from "../../schema/crd.js";
import { backupClaim, backupCronJob } from "./children/backup.js";
import { configMap } from "./children/configmap.js";
import { podDisruptionBudget } from "./children/pdb.js";
import { credentialsSecret } from "./children/secret.js";
import { headlessService, primaryService, readonlyService } from "./children/services.js";
import { statefulSet } from "./children/statefulset.js";
import { engineOfImage } from "./engines/index.js";
import { CHILD_KINDS } from "./kinds.js";
import { type DatabaseModel, databaseModel } from "./model.js";
import { childNames } from "./names.js";
import { type Database, majorVersion, parentIdentity, parseDatabase } from "./spec.js";
import { databaseStatus, type Problem } from "./status.js";

/** What the hook decided to do with a Database whose spec it could read. */
export type Plan =
  | { readonly kind: "apply"; readonly model: DatabaseModel; readonly problem?: Problem }
  | { readonly kind: "keep"; readonly problem: Problem };

/** The spec as written, or the running version when a change cannot be applied in place. */
export function planDatabase(database: Database, observed: Observed): Plan {
  const { spec, name } = database;
  const sts = observed.get<StatefulSet>(CHILD_KINDS.statefulSet, childNames(name).statefulSet);
  const image = sts?.spec?.template?.spec?.containers?.[0]?.image;
  const running = image ? engineOfImage(image) : undefined;
  if (!running) return { kind: "apply", model: databaseModel(database, spec.version) };
  if (running.engine !== spec.engine) {
    return {
      kind: "keep",
      problem: {
        reason: "EngineChangeRefused",
        message: `spec.engine: Forbidden: the data volumes hold ${running.engine} data and cannot be switched to ${spec.engine} in place; set spec.engine back to ${running.engine}, or create a new Database and migrate the data`,
      },
    };
  }
  const from = majorVersion(running.version);
  const to = majorVersion(spec.version);
  if (from === to) return { kind: "apply", model: databaseModel(database, spec.version) };
  return {
    kind: "apply",
    model: databaseModel(database, running.version),
    problem: {
      reason: "MajorVersionChangeRefused",
      message: `spec.version: Forbidden: major version change ${running.version} -> ${spec.version} is refused (the data directory of major ${from} cannot be opened by major ${to}); still running ${image}. Set spec.version back to a ${from}.x version, or dump this Database and restore it into a new one at ${spec.version}`,
    },
  };
}

/** The children a Database should have, in a fixed order. */
export function desiredChildren(
  model: DatabaseModel,
  observed: Observed,
  credentialsKey: Uint8Array,
): KubeObject[] {
  const { spec } = model.database;
  const { names } = model;
  const replicated = spec.replicas > 1;
  const backups = spec.backup.enabled;
  // A dumps volume that exists holds backups: keep it even when backups are switched off later.
  const observedClaim = observed.get<PersistentVolumeClaim>(
    CHILD_KINDS.persistentVolumeClaim,
    names.backupClaim,
  );
  const ownClaim = (backups && !spec.backup.claimName) || observedClaim !== undefined;
  const children: KubeObject[] = [
    credentialsSecret(model, observed.get<Secret>(CHILD_KINDS.secret, names.secret), credentialsKey),
    configMap(model),
    headlessService(model),
    primaryService(model),
    ...(replicated ? [readonlyService(model)] : []),
    statefulSet(model),
    ...(replicated ? [podDisruptionBudget(model)] : []),
    ...(ownClaim ? [observedClaim ? asUnchanged(observedClaim as KubeObject) : backupClaim(model)] : []),
    ...(backups ? [backupCronJob(model)] : []),
  ];
  return children as KubeObject[];
}

function previousStatus(parent: ParentObject): Record<string, unknown> {
  return isRecord(parent.status) ? parent.status : {};
}

/** Every observed child kept as it is, and a Failed status that says why. */
export function keepEverything(request: HookRequest, problem: Problem, now: Date): HookResponse {
  const identity = parentIdentity(request.parent);
  const observed = new Observed(request.children);
  const status = databaseStatus({
    namespace: identity.namespace,
    generation: identity.generation,
    names: childNames(identity.name),
    observed,
    previous: previousStatus(request.parent),
    now,
    problem,
  });
  return { status, children: observed.all().map(asUnchanged) };
}

export function syncDatabase(
  schema: CompiledSchema,
  request: HookRequest,
  context: HookContext,
): HookResponse {
  const parsed = parseDatabase(request.parent, schema);
  if (!parsed.ok)
    return keepEverything(request, { reason: "InvalidSpec", message: parsed.errors.join("; ") }, context.now);
  const observed = new Observed(request.children);
  const plan = planDatabase(parsed.database, observed);
  if (plan.kind === "keep") return keepEverything(request, plan.problem, context.now);
  return {
    status: statusFor({ request, plan, observed, now: context.now }),
    children: desiredChildren(plan.model, observed, context.credentialsKey),
  };
}

export interface StatusRequest {
  readonly request: HookRequest;
  readonly plan: Extract<Plan, { kind: "apply" }>;
  readonly observed: Observed;
  readonly now: Date;
  /** While finalizing: what the finalize hook is doing. */
  readonly deleting?: string;
}

export function statusFor({
  request,
  plan,
  observed,
  now,
  deleting,
}: StatusRequest): Record<string, unknown> {
  const { model } = plan;
  const { database } = model;
  return databaseStatus({
    namespace: database.namespace,
    generation: database.generation,
    names: model.names,
    observed,
    previous: previousStatus(request.parent),
    now,
    desired: { replicas: database.spec.replicas, image: model.image, backups: database.spec.backup.enabled },
    ...(plan.problem ? { problem: plan.problem } : {}),
    ...(deleting !== undefined ? { deleting } : {}),
  });
}
