import {
  type EngineProfile,
  execProbe,
  GiB,
  LIVENESS_TIMING,
  READINESS_TIMING,
  secretEnv,
  type Tuning,
  versionParts,
} from "./profile.js";
import { encodeURIComponentStrict } from "./uri.js";

const CONFIG_DIR = "/etc/mongo";
const SUPPORTED_MAJORS = [7, 8];

function mongodConf({ memoryLimitBytes }: Tuning): string {
  // WiredTiger's own default is (RAM - 1 GiB) / 2 with a 0.25 GiB floor; RAM here is the container's limit.
  const cacheSizeGB = Math.max(0.25, (memoryLimitBytes - GiB) / 2 / GiB);
  return [
    "# Written by dbhooks from the Database's size; edit the Database, not this file.",
    "net:",
    "  port: 27017",
    "  bindIpAll: true",
    "storage:",
    "  dbPath: /data/db",
    "  wiredTiger:",
    "    engineConfig:",
    `      cacheSizeGB: ${Math.round(cacheSizeGB * 100) / 100}`,
    "",
  ].join("\n");
}

const MONGOSH_PING = ["mongosh", "--quiet", "--eval", "db.adminCommand('ping')"];

export const mongodb: EngineProfile = {
  engine: "mongodb",
  image: "mongo",
  port: { name: "mongodb", number: 27017 },
  unsupportedVersion(version) {
    const [major = 0] = versionParts(version);
    return SUPPORTED_MAJORS.includes(major) ? undefined : "MongoDB 7.0 and 8.0 are supported";
  },
  dataVolume: () => ({ mountPath: "/data/db", env: [] }),
  args: ["mongod", "--config", `${CONFIG_DIR}/mongod.conf`],
  configMountPath: CONFIG_DIR,
  configFiles: (tuning) => ({ "mongod.conf": mongodConf(tuning) }),
  serverEnv: (secret) => [
    secretEnv("MONGO_INITDB_ROOT_USERNAME", secret, "username"),
    secretEnv("MONGO_INITDB_ROOT_PASSWORD", secret, "password"),
    secretEnv("MONGO_INITDB_DATABASE", secret, "database"),
  ],
  readinessProbe: () => execProbe(MONGOSH_PING, READINESS_TIMING),
  livenessProbe: () => execProbe(MONGOSH_PING, LIVENESS_TIMING),
  credentials: {
    username: "root",
    database: "app",
    extraSecrets: ["replica-set-key"],
    uri: (c) =>
      `mongodb://${encodeURIComponentStrict(c.username)}:${encodeURIComponentStrict(c.password)}@${c.host}:${c.port}/${encodeURIComponentStrict(c.database)}?authSource=admin`,
  },
  backup: {
    extension: "archive.gz",
    env: (secret) => [
      secretEnv("MONGO_USER", secret, "username"),
      secretEnv("MONGO_PASSWORD", secret, "password"),
    ],
    // --archive --gzip already compresses, so the dump is not piped through gzip again.
    dumpCommand:
      'mongodump --host "$DB_HOST" --port 27017 --username "$MONGO_USER" --password "$MONGO_PASSWORD" --authenticationDatabase admin --archive --gzip',
  },
};
