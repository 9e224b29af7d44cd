import { MYSQL_CLONE, MYSQL_READY, MYSQL_RUN, REPLICATION_USER } from "./mysql-scripts.js";
import {
  type EngineProfile,
  execProbe,
  LIVENESS_TIMING,
  MiB,
  READINESS_TIMING,
  SCRIPTS_DIR,
  scriptProbe,
  secretEnv,
  type Tuning,
  versionParts,
} from "./profile.js";
import { encodeURIComponentStrict } from "./uri.js";

const CHUNK = 128 * MiB;

function mysqlCnf({ memoryLimitBytes }: Tuning): string {
  // InnoDB sizes the buffer pool in chunks of 128 MiB: half the memory, rounded down to whole chunks.
  const bufferPool = Math.max(1, Math.floor(memoryLimitBytes / 2 / CHUNK)) * CHUNK;
  const maxConnections = Math.min(1000, Math.max(25, Math.floor(memoryLimitBytes / (12 * MiB))));
  return [
    "# Written by dbhooks from the Database's size; edit the Database, not this file.",
    "[mysqld]",
    "port = 3306",
    "skip-name-resolve",
    `max_connections = ${maxConnections}`,
    `innodb_buffer_pool_size = ${bufferPool / MiB}M`,
    // Replication: every transaction has a GTID, so a replica cloned from pod 0 follows it with
    // SOURCE_AUTO_POSITION. The binary log is on by default; server_id and read-only come per pod from
    // mysql-run.sh.
    "gtid_mode = ON",
    "enforce_gtid_consistency = ON",
    "",
  ].join("\n");
}

const SCRIPTS = { run: "mysql-run.sh", clone: "mysql-clone.sh", ready: "mysql-ready.sh" } as const;
const MYSQLADMIN_PING = ["sh", "-c", "exec mysqladmin ping -h 127.0.0.1 --silent"];

export const mysql: EngineProfile = {
  engine: "mysql",
  image: "mysql",
  port: { name: "mysql", number: 3306 },
  unsupportedVersion(version) {
    const [major = 0, minor] = versionParts(version);
    if (major === 9) return undefined;
    // The 8.0 tags are gone from the official image; 8 and 8.4 are the LTS line.
    if (major === 8 && (minor === undefined || minor >= 4)) return undefined;
    return "MySQL 8.4 (LTS) and 9.x are supported";
  },
  dataVolume: () => ({ mountPath: "/var/lib/mysql", env: [] }),
  // mysql-run.sh execs the image's entrypoint with this pod's server_id and read-only flags.
  command: ["bash", `${SCRIPTS_DIR}/${SCRIPTS.run}`],
  args: undefined,
  configMountPath: "/etc/mysql/conf.d",
  configFiles: (tuning) => ({ "dbhooks.cnf": mysqlCnf(tuning) }),
  scripts: { [SCRIPTS.clone]: MYSQL_CLONE, [SCRIPTS.ready]: MYSQL_READY, [SCRIPTS.run]: MYSQL_RUN },
  replication: (context) => ({
    env: [
      { name: "PRIMARY_HOST", value: context.primaryService },
      { name: "PRIMARY_PORT", value: "3306" },
      { name: "MEMBER_DOMAIN", value: context.memberDomain },
      { name: "REPLICATION_USER", value: REPLICATION_USER },
      secretEnv("REPLICATION_PASSWORD", context.secretName, "replication-password"),
    ],
    initContainers: [
      { name: "clone-primary", command: ["bash", `${SCRIPTS_DIR}/${SCRIPTS.clone}`], volumeMounts: [] },
    ],
    volumes: [],
    volumeMounts: [],
  }),
  serverEnv: (secret) => [
    secretEnv("MYSQL_ROOT_PASSWORD", secret, "root-password"),
    secretEnv("MYSQL_DATABASE", secret, "database"),
    secretEnv("MYSQL_USER", secret, "username"),
    secretEnv("MYSQL_PASSWORD", secret, "password"),
  ],
  // As root (the image creates root@'%'): a replica's replication state is in performance_schema.
  readinessProbe: () => scriptProbe(SCRIPTS.ready, READINESS_TIMING),
  livenessProbe: () => execProbe(MYSQLADMIN_PING, LIVENESS_TIMING),
  startupProbe: () => undefined,
  credentials: {
    username: "app",
    database: "app",
    extraSecrets: ["root-password", "replication-password"],
    uri: (c) =>
      `mysql://${encodeURIComponentStrict(c.username)}:${encodeURIComponentStrict(c.password)}@${c.host}:${c.port}/${encodeURIComponentStrict(c.database)}`,
  },
  backup: {
    extension: "sql.gz",
    env: (secret) => [secretEnv("MYSQL_PWD", secret, "root-password")],
    dumpCommand:
      'mysqldump -h "$DB_HOST" -P 3306 -uroot --single-transaction --routines --triggers --events --all-databases | gzip',
  },
};
