// What an engine profile tells the child builders. The builders never branch on the engine name:
// everything that differs between PostgreSQL, MySQL and MongoDB is answered here.
import type { EnvVar, Probe } from "kubernetes-types/core/v1.js";
import type { Engine } from "../spec.js";

export interface ConnectionInfo {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
  readonly database: string;
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
  /** Container args (the image's entrypoint is kept), or undefined for the image's default. */
  readonly args: readonly string[] | undefined;
  /** The ConfigMap is mounted here; its keys are file names. */
  readonly configMountPath: string;
  configFiles(tuning: Tuning): Record<string, string>;
  /** Env of the database container, from the credentials Secret. */
  serverEnv(secretName: string): EnvVar[];
  readinessProbe(): Probe;
  livenessProbe(): Probe;
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
}

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;

export function secretEnv(name: string, secret: string, key: string): EnvVar {
  return { name, valueFrom: { secretKeyRef: { name: secret, key } } };
}

export function execProbe(command: string[], timing: Omit<Probe, "exec">): Probe {
  return { exec: { command: [...command] }, ...timing };
}

export const READINESS_TIMING = { periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 3 } as const;
export const LIVENESS_TIMING = { periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 6 } as const;

/** "16", "16.4" and "16.4.1" all run major 16. */
export function versionParts(version: string): number[] {
  return version.split(".").map((p) => Number.parseInt(p, 10));
}
