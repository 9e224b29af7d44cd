import type { PodDisruptionBudget } from "kubernetes-types/policy/v1.js";
import { type DatabaseModel, metadata } from "../model.js";

/** Voluntary disruptions (node drains) take at most one pod at a time. */
export function podDisruptionBudget(model: DatabaseModel): PodDisruptionBudget {
  return {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: metadata(model, model.names.podDisruptionBudget),
    spec: {
      maxUnavailable: 1,
      selector: { matchLabels: { ...model.selector } },
    },
  };
}
