// Every child name and label of a Database comes from here, so the length limits are checked in one place.

export const API_GROUP = "dbhooks.io";
export const KIND = "Database";

/** Kubernetes caps CronJob names at 52 (Job names get an 11-character suffix); `<name>-db-backup` is
 * the tightest fit, so a Database name may have at most 52 - 10 = 42 characters. */
export const MAX_DATABASE_NAME_LENGTH = 42;
const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

export interface ChildNames {
  readonly statefulSet: string;
  readonly headlessService: string;
  readonly primaryService: string;
  readonly readonlyService: string;
  readonly configMap: string;
  readonly secret: string;
  readonly podDisruptionBudget: string;
  readonly backupCronJob: string;
  readonly backupClaim: string;
  readonly finalBackupJob: string;
  /** The primary pod: the StatefulSet's ordinal 0. */
  readonly primaryPod: string;
}

export function childNames(database: string): ChildNames {
  const base = `${database}-db`;
  return {
    statefulSet: base,
    headlessService: `${base}-headless`,
    primaryService: `${base}-primary`,
    readonlyService: `${base}-readonly`,
    configMap: `${base}-config`,
    secret: `${base}-credentials`,
    podDisruptionBudget: base,
    backupCronJob: `${base}-backup`,
    backupClaim: `${base}-backup`,
    finalBackupJob: `${base}-final-backup`,
    primaryPod: `${base}-0`,
  };
}

/** Why a Database name cannot be used to name its children, or undefined when it can. */
export function invalidDatabaseName(name: string): string | undefined {
  if (!DNS_1035_LABEL.test(name)) {
    return `metadata.name: Invalid value: "${name}": must be a DNS-1035 label (lower-case letters, digits and '-', starting with a letter), since it names Services`;
  }
  if (name.length > MAX_DATABASE_NAME_LENGTH) {
    return `metadata.name: Invalid value: "${name}": must be at most ${MAX_DATABASE_NAME_LENGTH} characters so that the backup CronJob name "${childNames(name).backupCronJob}" fits in 52`;
  }
  return undefined;
}

export type Labels = Record<string, string>;

/** Labels on every child; all but managed-by also select the database pods. */
export function commonLabels(engine: string, database: string, component = "database"): Labels {
  return { ...podSelector(engine, database, component), "app.kubernetes.io/managed-by": "dbhooks" };
}

/** The component keeps backup pods out of the database pods' Services and PodDisruptionBudget. */
export function podSelector(engine: string, database: string, component = "database"): Labels {
  return {
    "app.kubernetes.io/name": engine,
    "app.kubernetes.io/instance": database,
    "app.kubernetes.io/component": component,
  };
}

/** Service DNS name as clients in the cluster use it. */
export function serviceEndpoint(service: string, namespace: string, port: number): string {
  return `${service}.${namespace}.svc.cluster.local:${port}`;
}
