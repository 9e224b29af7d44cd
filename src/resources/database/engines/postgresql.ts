import { BOOTSTRAP_STANDBY, REPLICATION_USER } from "./postgresql-scripts.js";
import {
  type EngineProfile,
  execProbe,
  LIVENESS_TIMING,
  MiB,
  READINESS_TIMING,
  SCRIPTS_DIR,
  secretEnv,
  type Tuning,
  versionParts,
} from "./profile.js";
import { encodeURIComponentStrict } from "./uri.js";

const CONFIG_DIR = "/etc/postgresql";
const SUPPORTED_MAJORS = [14, 15, 16, 17, 18];

/** WAL kept for standbys that fall behind or restart: a tenth of the volume, 64 MiB to 16 GiB. */
function walKeepMiB(storageBytes: number): number {
  return Math.min(16384, Math.max(64, Math.floor(storageBytes / MiB / 10)));
}

function postgresqlConf({ memoryLimitBytes, storageBytes }: Tuning): string {
  const memoryMiB = Math.floor(memoryLimitBytes / MiB);
  const maxConnections = Math.min(1000, Math.max(25, Math.floor(memoryMiB / 9)));
  return [
    "# Written by dbhooks from the Database's size; edit the Database, not this file.",
    "listen_addresses = '*'",
    "port = 5432",
    `max_connections = ${maxConnections}`,
    `shared_buffers = ${Math.floor(memoryMiB / 4)}MB`,
    `effective_cache_size = ${Math.floor(memoryMiB / 2)}MB`,
    "password_encryption = scram-sha-256",
    // Streaming replication: pod 0 sends WAL, pods 1..n-1 (standby.signal from pg_basebackup -R) replay it
    // and answer read-only queries. Without replication slots, a standby that falls further behind than
    // wal_keep_size needs a new base backup (see the README).
    "wal_level = replica",
    "max_wal_senders = 10",
    "max_replication_slots = 10",
    `wal_keep_size = ${walKeepMiB(storageBytes)}MB`,
    "hot_standby = on",
    "log_destination = 'stderr'",
    "",
  ].join("\n");
}

// Password authentication everywhere, including the local socket: never trust, never md5. Only the
// replication role may open replication connections.
const PG_HBA = [
  "# TYPE  DATABASE     USER        ADDRESS    METHOD",
  "local   all          all                    scram-sha-256",
  "host    all          all         0.0.0.0/0  scram-sha-256",
  "host    all          all         ::/0       scram-sha-256",
  `host    replication  ${REPLICATION_USER}  0.0.0.0/0  scram-sha-256`,
  `host    replication  ${REPLICATION_USER}  ::/0       scram-sha-256`,
  "",
].join("\n");

const BOOTSTRAP_SCRIPT = "bootstrap-standby.sh";

const PG_ISREADY = ["sh", "-c", 'exec pg_isready -U "$POSTGRES_USER" -h 127.0.0.1 -p 5432'];

export const postgresql: EngineProfile = {
  engine: "postgresql",
  image: "postgres",
  port: { name: "postgresql", number: 5432 },
  unsupportedVersion(version) {
    const [major = 0] = versionParts(version);
    return SUPPORTED_MAJORS.includes(major)
      ? undefined
      : `PostgreSQL majors ${SUPPORTED_MAJORS.join(", ")} are supported`;
  },
  dataVolume(version) {
    const [major = 0] = versionParts(version);
    // 18+ images keep PGDATA under /var/lib/postgresql/<major>/docker and refuse a mount at .../data.
    if (major >= 18) return { mountPath: "/var/lib/postgresql", env: [] };
    // A subfolder keeps initdb away from the volume's lost+found.
    return {
      mountPath: "/var/lib/postgresql/data",
      env: [{ name: "PGDATA", value: "/var/lib/postgresql/data/pgdata" }],
    };
  },
  command: undefined,
  args: [
    "postgres",
    "-c",
    `config_file=${CONFIG_DIR}/postgresql.conf`,
    "-c",
    `hba_file=${CONFIG_DIR}/pg_hba.conf`,
  ],
  configMountPath: CONFIG_DIR,
  configFiles: (tuning) => ({ "pg_hba.conf": PG_HBA, "postgresql.conf": postgresqlConf(tuning) }),
  scripts: { [BOOTSTRAP_SCRIPT]: BOOTSTRAP_STANDBY },
  // Every pod runs the bootstrap; on pod 0 and on a standby that has its data it does nothing. The server
  // command stays the image's: a standby is a data directory with standby.signal and primary_conninfo.
  replication: (context) => ({
    env: [
      { name: "PRIMARY_HOST", value: context.primaryService },
      { name: "PRIMARY_PORT", value: "5432" },
      { name: "REPLICATION_USER", value: REPLICATION_USER },
      secretEnv("REPLICATION_PASSWORD", context.secretName, "replication-password"),
    ],
    initContainers: [
      {
        name: "bootstrap-standby",
        command: ["bash", `${SCRIPTS_DIR}/${BOOTSTRAP_SCRIPT}`],
        volumeMounts: [],
      },
    ],
    volumes: [],
    volumeMounts: [],
  }),
  serverEnv: (secret) => [
    secretEnv("POSTGRES_USER", secret, "username"),
    secretEnv("POSTGRES_PASSWORD", secret, "password"),
    secretEnv("POSTGRES_DB", secret, "database"),
  ],
  readinessProbe: () => execProbe(PG_ISREADY, READINESS_TIMING),
  livenessProbe: () => execProbe(PG_ISREADY, LIVENESS_TIMING),
  // pg_isready answers on a hot standby once it is consistent, so readiness serves startup too.
  startupProbe: () => undefined,
  credentials: {
    username: "app",
    database: "app",
    extraSecrets: ["replication-password"],
    uri: (c) =>
      `postgresql://${encodeURIComponentStrict(c.username)}:${encodeURIComponentStrict(c.password)}@${c.host}:${c.port}/${encodeURIComponentStrict(c.database)}`,
  },
  backup: {
    extension: "sql.gz",
    env: (secret) => [secretEnv("PGUSER", secret, "username"), secretEnv("PGPASSWORD", secret, "password")],
    // The same image as the server: pg_dumpall must be at least the server's version.
    dumpCommand: 'pg_dumpall -h "$DB_HOST" -p 5432 --clean --if-exists | gzip',
  },
};
