// What an engine profile tells the child builders. The builders never branch on the engine name:
// everything that differs between PostgreSQL, MySQL and MongoDB is answered here.
import type { EnvVar, Probe, Volume, VolumeMount } from "kubernetes-types/core/v1.js";
import type { Engine } from "../spec.js";

export interface ConnectionInfo {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
  readonly database: string;
  /** The replica set name, for engines whose clients must know it. */
  readonly replicaSet: string;
}

/** Where the ConfigMap's scripts are mounted (read-only) in every container of the database pods. */
export const SCRIPTS_DIR = "/opt/dbhooks";

/** What a profile needs to know to wire replication into the pods of one Database. */
export interface ReplicationContext {
  /** The Database's name: it names the replica set where the engine has one. */
  readonly name: string;
  readonly secretName: string;
  readonly replicas: number;
  /** Service that selects pod 0, the primary: what replicas copy and follow. */
  readonly primaryService: string;
  /** `<headless service>.<namespace>.svc.cluster.local`: pod k is `<statefulset>-k.<memberDomain>`. */
  readonly memberDomain: string;
}

/** A container that runs to completion before the server starts, with the server's image. */
export interface InitStep {
  readonly name: string;
  readonly command: readonly string[];
  /** Mounts beyond the data volume, the config files and the scripts, which every step gets. */
  readonly volumeMounts: readonly VolumeMount[];
}

/**
 * How the pods of a Database replicate. Every container of the pod (the server and the init steps) gets
 * `env`, the data volume, the config files and the scripts; the server gets `volumeMounts` too.
 */
export interface Replication {
  readonly env: readonly EnvVar[];
  readonly initContainers: readonly InitStep[];
  readonly volumes: readonly Volume[];
  readonly volumeMounts: readonly VolumeMount[];
}

export interface EngineProfile {
  readonly engine: Engine;
  /** Official image repository; the tag is spec.version. */
  readonly image: string;
  readonly port: { readonly name: string; readonly number: number };
  /** Why this version cannot be run, or undefined when it can. */
  unsupportedVersion(version: string): string | undefined;
  /** Where the data volume is mounted, and extra env that points the server at it. */
  dataVolume(version: string): { readonly mountPath: string; readonly env: readonly EnvVar[] };
  /** Container command, or undefined to keep the image's entrypoint. */
  readonly command: readonly string[] | undefined;
  /** Container args, or undefined for the image's default. */
  readonly args: readonly string[] | undefined;
  /** The ConfigMap's config files are mounted here; its keys are file names. */
  readonly configMountPath: string;
  configFiles(tuning: Tuning): Record<string, string>;
  /** Shell (and mongosh) scripts, ConfigMap keys mounted at SCRIPTS_DIR. Pod-specific values come from env. */
  readonly scripts: Readonly<Record<string, string>>;
  /** Init containers, env and volumes that make pod 0 the primary and the other pods its replicas. */
  replication(context: ReplicationContext): Replication;
  /** Env of the database container, from the credentials Secret. */
  serverEnv(secretName: string): EnvVar[];
  readinessProbe(): Probe;
  livenessProbe(): Probe;
  /** Until the server first answers; undefined: the readiness probe, with a generous failure budget. */
  startupProbe(): Probe | undefined;
  readonly credentials: {
    readonly username: string;
    readonly database: string;
    /** Secret keys holding extra generated secrets (root/replication passwords, keys). */
    readonly extraSecrets: readonly string[];
    uri(connection: ConnectionInfo): string;
  };
  readonly backup: {
    /** File name suffix of a dump, e.g. "sql.gz". */
    readonly extension: string;
    /** Env of the dump container, from the credentials Secret. */
    env(secretName: string): EnvVar[];
    /** A shell pipeline that writes a gzipped dump of the server at $DB_HOST to stdout. */
    readonly dumpCommand: string;
  };
}

/** Inputs of the engine tuning, derived from the container's memory limit. */
export interface Tuning {
  readonly memoryLimitBytes: number;
  /** The size of each data volume. */
  readonly storageBytes: number;
}

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;

export function secretEnv(name: string, secret: string, key: string): EnvVar {
  return { name, valueFrom: { secretKeyRef: { name: secret, key } } };
}

export function execProbe(command: string[], timing: Omit<Probe, "exec">): Probe {
  return { exec: { command: [...command] }, ...timing };
}

/** A probe that runs one of the scripts under SCRIPTS_DIR. */
export function scriptProbe(script: string, timing: Omit<Probe, "exec">): Probe {
  return execProbe(["bash", `${SCRIPTS_DIR}/${script}`], timing);
}

export const READINESS_TIMING = { periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 3 } as const;
export const LIVENESS_TIMING = { periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 6 } as const;

/** "16", "16.4" and "16.4.1" all run major 16. */
export function versionParts(version: string): number[] {
  return version.split(".").map((p) => Number.parseInt(p, 10));
}
