import { MONGODB_KEYFILE, MONGODB_READY_EVAL, MONGODB_REPLSET, MONGODB_RUN } from "./mongodb-scripts.js";
import {
  type EngineProfile,
  execProbe,
  GiB,
  LIVENESS_TIMING,
  READINESS_TIMING,
  SCRIPTS_DIR,
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
const MONGOSH_READY = ["mongosh", "--quiet", "--norc", "--eval", MONGODB_READY_EVAL];
const SCRIPTS = {
  keyfile: "mongodb-keyfile.sh",
  run: "mongodb-run.sh",
  replset: "mongodb-replset.js",
} as const;
// The key comes from the Secret through an init container into a memory-backed emptyDir, where it is
// owned by uid 999 with mode 0400: a Secret volume's files belong to root, and mongod refuses a key file
// its group may read.
const KEY_SECRET_VOLUME = "replica-set-key";
const KEY_SECRET_DIR = "/var/run/dbhooks/replica-set-key";
const KEYFILE_VOLUME = "keyfile";
const KEYFILE_DIR = "/var/run/dbhooks/keyfile";

export const mongodb: EngineProfile = {
  engine: "mongodb",
  image: "mongo",
  port: { name: "mongodb", number: 27017 },
  unsupportedVersion(version) {
    const [major = 0] = versionParts(version);
    return SUPPORTED_MAJORS.includes(major) ? undefined : "MongoDB 7.0 and 8.0 are supported";
  },
  dataVolume: () => ({ mountPath: "/data/db", env: [] }),
  // mongodb-run.sh adds --replSet and --keyFile and runs the image's entrypoint with these args.
  command: ["bash", `${SCRIPTS_DIR}/${SCRIPTS.run}`],
  args: ["mongod", "--config", `${CONFIG_DIR}/mongod.conf`],
  configMountPath: CONFIG_DIR,
  configFiles: (tuning) => ({ "mongod.conf": mongodConf(tuning) }),
  scripts: {
    [SCRIPTS.keyfile]: MONGODB_KEYFILE,
    [SCRIPTS.replset]: MONGODB_REPLSET,
    [SCRIPTS.run]: MONGODB_RUN,
  },
  replication: (context) => ({
    env: [
      { name: "REPLICA_SET", value: context.name },
      // Changes with spec.replicas and so rolls the pods: pod 0 then removes the members that are gone.
      { name: "REPLICAS", value: String(context.replicas) },
      { name: "MEMBER_DOMAIN", value: context.memberDomain },
      { name: "KEYFILE", value: `${KEYFILE_DIR}/key` },
      { name: "KEYFILE_SOURCE", value: `${KEY_SECRET_DIR}/key` },
    ],
    initContainers: [
      {
        name: "install-keyfile",
        command: ["bash", `${SCRIPTS_DIR}/${SCRIPTS.keyfile}`],
        volumeMounts: [
          { name: KEY_SECRET_VOLUME, mountPath: KEY_SECRET_DIR, readOnly: true },
          { name: KEYFILE_VOLUME, mountPath: KEYFILE_DIR },
        ],
      },
    ],
    volumes: [
      {
        name: KEY_SECRET_VOLUME,
        secret: {
          secretName: context.secretName,
          items: [{ key: "replica-set-key", path: "key" }],
          defaultMode: 0o440,
        },
      },
      { name: KEYFILE_VOLUME, emptyDir: { medium: "Memory", sizeLimit: "1Mi" } },
    ],
    volumeMounts: [{ name: KEYFILE_VOLUME, mountPath: KEYFILE_DIR, readOnly: true }],
  }),
  serverEnv: (secret) => [
    secretEnv("MONGO_INITDB_ROOT_USERNAME", secret, "username"),
    secretEnv("MONGO_INITDB_ROOT_PASSWORD", secret, "password"),
    secretEnv("MONGO_INITDB_DATABASE", secret, "database"),
  ],
  // Ready: PRIMARY or SECONDARY. Started: mongod answers, however long a new member's initial sync takes.
  readinessProbe: () => execProbe(MONGOSH_READY, READINESS_TIMING),
  livenessProbe: () => execProbe(MONGOSH_PING, LIVENESS_TIMING),
  startupProbe: () => execProbe(MONGOSH_PING, { periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 60 }),
  credentials: {
    username: "root",
    database: "app",
    extraSecrets: ["replica-set-key"],
    uri: (c) =>
      `mongodb://${encodeURIComponentStrict(c.username)}:${encodeURIComponentStrict(c.password)}@${c.host}:${c.port}/${encodeURIComponentStrict(c.database)}?authSource=admin&replicaSet=${encodeURIComponentStrict(c.replicaSet)}`,
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
