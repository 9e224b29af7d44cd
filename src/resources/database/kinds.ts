import type { ChildKind } from "../../metacontroller/observed.js";

/** Every kind the Database hooks emit: the CompositeController needs a childResources rule for each. */
export const CHILD_KINDS = {
  secret: { kind: "Secret", apiVersion: "v1", resource: "secrets" },
  configMap: { kind: "ConfigMap", apiVersion: "v1", resource: "configmaps" },
  service: { kind: "Service", apiVersion: "v1", resource: "services" },
  statefulSet: { kind: "StatefulSet", apiVersion: "apps/v1", resource: "statefulsets" },
  podDisruptionBudget: {
    kind: "PodDisruptionBudget",
    apiVersion: "policy/v1",
    resource: "poddisruptionbudgets",
  },
  persistentVolumeClaim: {
    kind: "PersistentVolumeClaim",
    apiVersion: "v1",
    resource: "persistentvolumeclaims",
  },
  cronJob: { kind: "CronJob", apiVersion: "batch/v1", resource: "cronjobs" },
  job: { kind: "Job", apiVersion: "batch/v1", resource: "jobs" },
} as const satisfies Record<string, ChildKind & { resource: string }>;
