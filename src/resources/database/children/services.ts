import type { Service, ServicePort } from "kubernetes-types/core/v1.js";
import { type DatabaseModel, metadata } from "../model.js";

function ports(model: DatabaseModel): ServicePort[] {
  const { name, number } = model.profile.port;
  return [{ name, port: number, targetPort: name, protocol: "TCP" }];
}

/** Gives every pod a stable DNS name (<pod>.<service>); not-ready pods too, so replicas can find peers. */
export function headlessService(model: DatabaseModel): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: metadata(model, model.names.headlessService),
    spec: {
      clusterIP: "None",
      publishNotReadyAddresses: true,
      selector: { ...model.selector },
      ports: ports(model),
    },
  };
}

/** Read-write traffic: pod 0 only. */
export function primaryService(model: DatabaseModel): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: metadata(model, model.names.primaryService),
    spec: {
      type: "ClusterIP",
      selector: { ...model.selector, "statefulset.kubernetes.io/pod-name": model.names.primaryPod },
      ports: ports(model),
    },
  };
}

/** Read-only traffic, spread over every ready pod; only when there are replicas. */
export function readonlyService(model: DatabaseModel): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: metadata(model, model.names.readonlyService),
    spec: {
      type: "ClusterIP",
      selector: { ...model.selector },
      ports: ports(model),
    },
  };
}
