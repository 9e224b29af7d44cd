import type { StatefulSet } from "kubernetes-types/apps/v1.js";
import type { Container, EnvVar, Volume, VolumeMount } from "kubernetes-types/core/v1.js";
import { type InitStep, type Replication, SCRIPTS_DIR } from "../engines/profile.js";
import { configChecksum, type DatabaseModel, metadata } from "../model.js";
import { toRequirements } from "../resources.js";
import { containerSecurityContext, podSecurityContext } from "./security.js";

export const CONFIG_CHECKSUM_ANNOTATION = "dbhooks.io/config-checksum";
const DATA_VOLUME = "data";
const CONFIG_VOLUME = "config";
const SCRIPTS_VOLUME = "scripts";

/** What every container of a database pod shares: env, and the data, config and scripts mounts. */
interface PodParts {
  readonly replication: Replication;
  readonly env: EnvVar[];
  readonly volumeMounts: VolumeMount[];
}

function podParts(model: DatabaseModel): PodParts {
  const { profile, version, names, database } = model;
  const data = profile.dataVolume(version);
  const replication = profile.replication({
    name: database.name,
    secretName: names.secret,
    replicas: database.spec.replicas,
    primaryService: names.primaryService,
    memberDomain: `${names.headlessService}.${database.namespace}.svc.cluster.local`,
  });
  return {
    replication,
    env: [...profile.serverEnv(names.secret), ...data.env, ...replication.env],
    volumeMounts: [
      { name: DATA_VOLUME, mountPath: data.mountPath },
      { name: CONFIG_VOLUME, mountPath: profile.configMountPath, readOnly: true },
      { name: SCRIPTS_VOLUME, mountPath: SCRIPTS_DIR, readOnly: true },
    ],
  };
}

/** The ConfigMap twice: the config files where the engine reads them, the scripts under SCRIPTS_DIR. */
function configVolumes(model: DatabaseModel): Volume[] {
  const items = (files: Readonly<Record<string, string>>) =>
    Object.keys(files)
      .sort()
      .map((key) => ({ key, path: key }));
  const { configMap } = model.names;
  return [
    { name: CONFIG_VOLUME, configMap: { name: configMap, items: items(model.configFiles) } },
    { name: SCRIPTS_VOLUME, configMap: { name: configMap, items: items(model.scripts) } },
  ];
}

/** An engine's init step: the server's image, env, mounts, resources and restrictions. */
function initContainer(model: DatabaseModel, parts: PodParts, step: InitStep): Container {
  return {
    name: step.name,
    image: model.image,
    command: [...step.command],
    env: parts.env,
    resources: toRequirements(model.resources),
    securityContext: containerSecurityContext(),
    volumeMounts: [...parts.volumeMounts, ...step.volumeMounts],
  };
}

function databaseContainer(model: DatabaseModel, parts: PodParts): Container {
  const { profile } = model;
  // Generous startup: the first start initialises the data directory before it answers.
  const startupProbe = profile.startupProbe() ?? {
    ...profile.readinessProbe(),
    periodSeconds: 10,
    failureThreshold: 60,
  };
  return {
    name: profile.engine,
    image: model.image,
    ...(profile.command ? { command: [...profile.command] } : {}),
    ...(profile.args ? { args: [...profile.args] } : {}),
    ports: [{ name: profile.port.name, containerPort: profile.port.number, protocol: "TCP" }],
    env: parts.env,
    resources: toRequirements(model.resources),
    startupProbe,
    readinessProbe: profile.readinessProbe(),
    livenessProbe: profile.livenessProbe(),
    securityContext: containerSecurityContext(),
    volumeMounts: [...parts.volumeMounts, ...parts.replication.volumeMounts],
  };
}

export function statefulSet(model: DatabaseModel): StatefulSet {
  const { database, names, selector } = model;
  const { spec } = database;
  const parts = podParts(model);
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: metadata(model, names.statefulSet),
    spec: {
      serviceName: names.headlessService,
      replicas: spec.replicas,
      podManagementPolicy: "OrderedReady",
      updateStrategy: { type: "RollingUpdate" },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: spec.deletionPolicy, whenScaled: "Retain" },
      selector: { matchLabels: { ...selector } },
      template: {
        metadata: {
          labels: { ...model.labels },
          annotations: { [CONFIG_CHECKSUM_ANNOTATION]: configChecksum(model) },
        },
        spec: {
          securityContext: podSecurityContext(),
          enableServiceLinks: false,
          terminationGracePeriodSeconds: 60,
          affinity: {
            // Spread the copies over nodes when the cluster can; never block scheduling for it.
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                {
                  weight: 100,
                  podAffinityTerm: {
                    topologyKey: "kubernetes.io/hostname",
                    labelSelector: { matchLabels: { ...selector } },
                  },
                },
              ],
            },
          },
          // Pod 0 is the primary; the engine's init steps make every other pod its replica.
          initContainers: parts.replication.initContainers.map((step) => initContainer(model, parts, step)),
          containers: [databaseContainer(model, parts)],
          volumes: [...configVolumes(model), ...parts.replication.volumes],
        },
      },
      volumeClaimTemplates: [
        {
          apiVersion: "v1",
          kind: "PersistentVolumeClaim",
          metadata: { name: DATA_VOLUME, labels: { ...model.labels } },
          spec: {
            accessModes: ["ReadWriteOnce"],
            ...(spec.storage.storageClass ? { storageClassName: spec.storage.storageClass } : {}),
            resources: { requests: { storage: spec.storage.size } },
            volumeMode: "Filesystem",
          },
          // The API server stores every template with this status. volumeClaimTemplates has no list merge
          // key, so Metacontroller replaces it whole: sending exactly what is stored keeps it from rewriting
          // the StatefulSet on every sync.
          status: { phase: "Pending" },
        },
      ],
    },
  };
}
