import type { ChildKind } from "../../metacontroller/observed.js";

/** Every kind the WebService hook emits: the CompositeController needs a childResources rule for each. */
export const CHILD_KINDS = {
  deployment: { kind: "Deployment", apiVersion: "apps/v1", resource: "deployments" },
  service: { kind: "Service", apiVersion: "v1", resource: "services" },
  ingress: { kind: "Ingress", apiVersion: "networking.k8s.io/v1", resource: "ingresses" },
} as const satisfies Record<string, ChildKind & { resource: string }>;
