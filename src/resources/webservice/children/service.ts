import type { Service } from "kubernetes-types/core/v1.js";
import { childNames, PORT_NAME, podSelector, SERVICE_PORT } from "../names.js";
import type { WebService } from "../spec.js";
import { metadata } from "./metadata.js";

/** Port 80 in the cluster, forwarded to the container's port by name (spec.port may change). */
export function service(webService: WebService): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: metadata(webService, childNames(webService.name).service),
    spec: {
      type: "ClusterIP",
      selector: podSelector(webService.name),
      ports: [{ name: PORT_NAME, port: SERVICE_PORT, targetPort: PORT_NAME, protocol: "TCP" }],
    },
  };
}
