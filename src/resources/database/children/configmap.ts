import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { configMapData, type DatabaseModel, metadata } from "../model.js";

/** The engine's config files, tuned from the memory limit, and its replication scripts. */
export function configMap(model: DatabaseModel): ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: metadata(model, model.names.configMap),
    data: configMapData(model),
  };
}
