// Status conditions as Kubernetes writes them, for any resource: a condition's lastTransitionTime moves
// only when its status changes, and times have second precision.
import { isRecord } from "./observed.js";

export type ConditionStatus = "True" | "False" | "Unknown";

export interface Condition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration: number;
}

/** Kubernetes writes times at second precision. */
export function kubeTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The conditions of a previous status, whatever else it holds. */
export function previousConditions(status: unknown): Condition[] {
  const conditions = isRecord(status) ? status.conditions : undefined;
  return Array.isArray(conditions)
    ? conditions.filter((c): c is Condition => isRecord(c) && typeof c.type === "string")
    : [];
}

export interface ConditionContext {
  /** The parent's status as last written: where transition times are carried from. */
  readonly previous: unknown;
  readonly generation: number;
  readonly now: Date;
}

/** A condition whose lastTransitionTime is carried over while its status stays the same. */
export function condition(
  context: ConditionContext,
  fields: Omit<Condition, "lastTransitionTime" | "observedGeneration">,
): Condition {
  const before = previousConditions(context.previous).find((c) => c.type === fields.type);
  const carried = before && before.status === fields.status && typeof before.lastTransitionTime === "string";
  return {
    type: fields.type,
    status: fields.status,
    reason: fields.reason,
    message: fields.message,
    lastTransitionTime: carried ? before.lastTransitionTime : kubeTime(context.now),
    observedGeneration: context.generation,
  };
}
