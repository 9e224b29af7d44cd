import {
  type EngineProfile,
  execProbe,
  LIVENESS_TIMING,
  MiB,
  READINESS_TIMING,
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
    "",
  ].join("\n");
}

// The app user: root may only exist for localhost if the image is told so; the app user never is.
const MYSQL_SELECT_1 = [
  "sh",
  "-c",
  'MYSQL_PWD="$MYSQL_PASSWORD" exec mysql -h 127.0.0.1 -u"$MYSQL_USER" -e "SELECT 1"',
];
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
  args: undefined,
  configMountPath: "/etc/mysql/conf.d",
  configFiles: (tuning) => ({ "dbhooks.cnf": mysqlCnf(tuning) }),
  serverEnv: (secret) => [
    secretEnv("MYSQL_ROOT_PASSWORD", secret, "root-password"),
    secretEnv("MYSQL_DATABASE", secret, "database"),
    secretEnv("MYSQL_USER", secret, "username"),
    secretEnv("MYSQL_PASSWORD", secret, "password"),
  ],
  readinessProbe: () => execProbe(MYSQL_SELECT_1, READINESS_TIMING),
  livenessProbe: () => execProbe(MYSQLADMIN_PING, LIVENESS_TIMING),
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
