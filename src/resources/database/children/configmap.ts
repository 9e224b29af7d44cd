import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { type DatabaseModel, metadata } from "../model.js";

/** The engine's config files, tuned from the memory limit. */
export function configMap(model: DatabaseModel): ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: metadata(model, model.names.configMap),
    data: { ...model.configFiles },
  };
}
