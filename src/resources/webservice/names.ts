// Every child name, label and injected variable name of a WebService comes from here.
import { childNames as databaseChildNames } from "../database/names.js";

export const KIND = "WebService";

/** A WebService names its Service, so its name must be a DNS-1035 label (at most 63 characters). */
export const MAX_WEBSERVICE_NAME_LENGTH = 63;
const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** The container's port name: the Service, the Ingress and the probes all refer to the port by it. */
export const PORT_NAME = "http";
/** What clients in the cluster connect to; the Service forwards it to the container's port. */
export const SERVICE_PORT = 80;

export interface ChildNames {
  readonly deployment: string;
  readonly service: string;
  readonly ingress: string;
}

/** Each child carries the WebService's own name: `kubectl get deploy,svc,ing NAME` finds them all. */
export function childNames(webService: string): ChildNames {
  return { deployment: webService, service: webService, ingress: webService };
}

/** Why a WebService name cannot name its children, or undefined when it can. */
export function invalidWebServiceName(name: string): string | undefined {
  if (DNS_1035_LABEL.test(name) && name.length <= MAX_WEBSERVICE_NAME_LENGTH) return undefined;
  return `metadata.name: Invalid value: "${name}": must be a DNS-1035 label of at most ${MAX_WEBSERVICE_NAME_LENGTH} characters (lower-case letters, digits and '-', starting with a letter), since it names a Service`;
}

/** The Secret of the TLS certificate for a host: `shop.example.com` -> `shop-example-com-tls`. */
export function tlsSecretName(host: string): string {
  return `${host.replaceAll(".", "-")}-tls`;
}

export type Labels = Record<string, string>;

/** Selects the WebService's pods (and only them: a Database's pods have another component). */
export function podSelector(webService: string): Labels {
  return {
    "app.kubernetes.io/name": webService,
    "app.kubernetes.io/instance": webService,
    "app.kubernetes.io/component": "web",
  };
}

/** Labels on every child and every pod. */
export function commonLabels(webService: string): Labels {
  return { ...podSelector(webService), "app.kubernetes.io/managed-by": "dbhooks" };
}

/** A label selector as the scale subresource reports it: `k=v,k=v`, keys sorted. */
export function selectorString(labels: Labels): string {
  return Object.keys(labels)
    .sort()
    .map((key) => `${key}=${labels[key]}`)
    .join(",");
}

/** The credentials Secret of a Database: the Database resource's own naming rule. */
export function databaseSecretName(database: string): string {
  return databaseChildNames(database).secret;
}

/** The variables spec.databaseRef injects, in this order, each from a key of the Database's Secret. */
export const DATABASE_ENV: readonly { readonly name: string; readonly key: string }[] = [
  { name: "DATABASE_URL", key: "uri" },
  { name: "DATABASE_HOST", key: "host" },
  { name: "DATABASE_PORT", key: "port" },
  { name: "DATABASE_USER", key: "username" },
  { name: "DATABASE_PASSWORD", key: "password" },
];

/** A Service's DNS name as clients in the cluster use it. */
export function serviceHost(service: string, namespace: string): string {
  return `${service}.${namespace}.svc.cluster.local`;
}
