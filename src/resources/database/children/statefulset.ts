import type { StatefulSet } from "kubernetes-types/apps/v1.js";
import type { Container } from "kubernetes-types/core/v1.js";
import { configChecksum, type DatabaseModel, metadata } from "../model.js";
import { toRequirements } from "../resources.js";
import { containerSecurityContext, podSecurityContext } from "./security.js";

export const CONFIG_CHECKSUM_ANNOTATION = "dbhooks.io/config-checksum";
const DATA_VOLUME = "data";
const CONFIG_VOLUME = "config";

function databaseContainer(model: DatabaseModel): Container {
  const { profile, version, names } = model;
  const data = profile.dataVolume(version);
  return {
    name: profile.engine,
    image: model.image,
    ...(profile.args ? { args: [...profile.args] } : {}),
    ports: [{ name: profile.port.name, containerPort: profile.port.number, protocol: "TCP" }],
    env: [...profile.serverEnv(names.secret), ...data.env],
    resources: toRequirements(model.resources),
    // Generous startup: the first start initialises the data directory before it answers.
    startupProbe: { ...profile.readinessProbe(), periodSeconds: 10, failureThreshold: 60 },
    readinessProbe: profile.readinessProbe(),
    livenessProbe: profile.livenessProbe(),
    securityContext: containerSecurityContext(),
    volumeMounts: [
      { name: DATA_VOLUME, mountPath: data.mountPath },
      { name: CONFIG_VOLUME, mountPath: profile.configMountPath, readOnly: true },
    ],
  };
}

export function statefulSet(model: DatabaseModel): StatefulSet {
  const { database, names, selector } = model;
  const { spec } = database;
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
          annotations: { [CONFIG_CHECKSUM_ANNOTATION]: configChecksum(model.configFiles) },
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
          containers: [databaseContainer(model)],
          volumes: [{ name: CONFIG_VOLUME, configMap: { name: names.configMap } }],
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
