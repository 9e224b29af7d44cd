// Status, computed only from what is observed: availableReplicas and the conditions from the Deployment
// (its own Available and Progressing, mirrored), the url from the Ingress or else the Service.
import type { Deployment, DeploymentCondition } from "kubernetes-types/apps/v1.js";
import type { Service } from "kubernetes-types/core/v1.js";
import type { Ingress } from "kubernetes-types/networking/v1.js";
import {
  type Condition,
  type ConditionContext,
  type ConditionStatus,
  condition,
} from "../../metacontroller/conditions.js";
import type { Observed } from "../../metacontroller/observed.js";
import type { ParentIdentity } from "../../metacontroller/parent.js";
import { CHILD_KINDS } from "./kinds.js";
import {
  type ChildNames,
  childNames,
  podSelector,
  SERVICE_PORT,
  selectorString,
  serviceHost,
} from "./names.js";

/** Something that stops the spec from being applied: the conditions say so, every child is kept. */
export interface Problem {
  readonly reason: "InvalidSpec";
  readonly message: string;
}

export interface StatusInput {
  readonly identity: ParentIdentity;
  readonly observed: Observed;
  /** The parent's status as last written: where transition times are carried from. */
  readonly previous: unknown;
  readonly now: Date;
  readonly problem?: Problem;
}

export const CONDITION_TYPES = ["Available", "Progressing"] as const;
type ConditionType = (typeof CONDITION_TYPES)[number];
type Fields = Omit<Condition, "lastTransitionTime" | "observedGeneration">;

const STATUSES: readonly string[] = ["True", "False", "Unknown"];
const REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

/** The Deployment's own condition of this type, as it wrote it (within what our status schema allows). */
function mirrored(type: ConditionType, found: DeploymentCondition): Fields {
  return {
    type,
    status: (STATUSES.includes(found.status) ? found.status : "Unknown") as ConditionStatus,
    reason: found.reason && REASON.test(found.reason) ? found.reason : "DeploymentCondition",
    message: found.message ?? "",
  };
}

function fromDeployment(type: ConditionType, deployment: Deployment | undefined, names: ChildNames): Fields {
  if (!deployment) {
    const message = `waiting for the Deployment ${names.deployment} to be created`;
    return { type, status: type === "Progressing" ? "True" : "False", reason: "Creating", message };
  }
  const generation = deployment.metadata?.generation ?? 0;
  if (type === "Progressing" && (deployment.status?.observedGeneration ?? 0) < generation) {
    const message = `the Deployment controller has not yet seen generation ${generation} of ${names.deployment}`;
    return { type, status: "True", reason: "RolloutPending", message };
  }
  const found = deployment.status?.conditions?.find((c) => c.type === type);
  if (found) return mirrored(type, found);
  const message = `the Deployment ${names.deployment} has not reported its ${type} condition yet`;
  return { type, status: "Unknown", reason: "NoDeploymentStatus", message };
}

/** https://host behind an Ingress with TLS for it, http://host without; else the Service in the cluster. */
function urlOf(observed: Observed, names: ChildNames, namespace: string): string | undefined {
  const ingress = observed.get<Ingress>(CHILD_KINDS.ingress, names.ingress);
  const host = ingress?.spec?.rules?.[0]?.host;
  if (host) {
    const tls = (ingress?.spec?.tls ?? []).some((t) => t.hosts?.includes(host));
    return `${tls ? "https" : "http"}://${host}`;
  }
  const port = observed.get<Service>(CHILD_KINDS.service, names.service)?.spec?.ports?.[0]?.port;
  if (port === undefined) return undefined;
  return `http://${serviceHost(names.service, namespace)}${port === SERVICE_PORT ? "" : `:${port}`}`;
}

export function webServiceStatus(input: StatusInput): Record<string, unknown> {
  const { identity, observed, problem } = input;
  const names = childNames(identity.name);
  const deployment = observed.get<Deployment>(CHILD_KINDS.deployment, names.deployment);
  const url = urlOf(observed, names, identity.namespace);
  const context: ConditionContext = {
    previous: input.previous,
    generation: identity.generation,
    now: input.now,
  };
  const conditions = CONDITION_TYPES.map((type) =>
    condition(
      context,
      problem
        ? { type, status: "False", reason: problem.reason, message: problem.message }
        : fromDeployment(type, deployment, names),
    ),
  );
  return {
    availableReplicas: deployment?.status?.availableReplicas ?? 0,
    ...(url ? { url } : {}),
    selector: selectorString(podSelector(identity.name)),
    conditions,
    observedGeneration: identity.generation,
  };
}
