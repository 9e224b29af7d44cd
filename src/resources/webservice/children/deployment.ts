import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { Container, EnvVar, Probe, ResourceRequirements } from "kubernetes-types/core/v1.js";
import {
  childNames,
  commonLabels,
  DATABASE_ENV,
  databaseSecretName,
  PORT_NAME,
  podSelector,
} from "../names.js";
import type { ResourceValues, WebService, WebServiceSpec } from "../spec.js";
import { metadata } from "./metadata.js";

/**
 * The database's variables first, from its Secret (secretKeyRef only: no credential is ever copied into
 * the Deployment), then spec.env in the order written, so that a variable can use $(DATABASE_URL).
 * An empty value is left out: the API server drops it, and Metacontroller would put it back on every sync.
 */
export function containerEnv(spec: WebServiceSpec): EnvVar[] {
  const database: EnvVar[] = spec.databaseRef
    ? DATABASE_ENV.map(({ name, key }) => ({
        name,
        valueFrom: {
          secretKeyRef: { name: databaseSecretName(spec.databaseRef?.name ?? ""), key },
        },
      }))
    : [];
  const own = (spec.env ?? []).map(({ name, value }) => (value ? { name, value } : { name }));
  return [...database, ...own];
}

function values(given: ResourceValues | undefined): Record<string, string> | undefined {
  if (!given?.cpu && !given?.memory) return undefined;
  return { ...(given.cpu ? { cpu: given.cpu } : {}), ...(given.memory ? { memory: given.memory } : {}) };
}

/** Only what the spec sets: there is no sensible default for an arbitrary image. */
function resources(spec: WebServiceSpec): ResourceRequirements | undefined {
  const requests = values(spec.resources?.requests);
  const limits = values(spec.resources?.limits);
  if (!requests && !limits) return undefined;
  return { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) };
}

/** TCP probes: any server that listens passes them, whatever its paths (an HTTP probe would need one). */
function probe(fields: Omit<Probe, "tcpSocket">): Probe {
  return { tcpSocket: { port: PORT_NAME }, ...fields };
}

function container(webService: WebService): Container {
  const { spec } = webService;
  const env = containerEnv(spec);
  const requirements = resources(spec);
  return {
    name: "web",
    image: spec.image,
    ports: [{ name: PORT_NAME, containerPort: spec.port, protocol: "TCP" }],
    ...(env.length > 0 ? { env } : {}),
    ...(requirements ? { resources: requirements } : {}),
    // Up to 5 minutes to start listening; then restarted after a minute of silence.
    startupProbe: probe({ periodSeconds: 5, failureThreshold: 60 }),
    readinessProbe: probe({ periodSeconds: 5, failureThreshold: 3 }),
    livenessProbe: probe({ periodSeconds: 10, failureThreshold: 6 }),
    // The restricted Pod Security Standard. The root filesystem stays writable: arbitrary images write
    // caches and temporary files where they please, and a read-only one would break many of them.
    securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
  };
}

export function deployment(webService: WebService): Deployment {
  const { name } = webService;
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: metadata(webService, childNames(name).deployment),
    spec: {
      replicas: webService.spec.replicas,
      selector: { matchLabels: podSelector(name) },
      // Never below the wanted count during a rollout: a new pod must be ready before an old one goes.
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: "25%" } },
      template: {
        metadata: { labels: commonLabels(name) },
        spec: {
          // A web service has no business with the Kubernetes API.
          automountServiceAccountToken: false,
          securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
          containers: [container(webService)],
        },
      },
    },
  };
}
