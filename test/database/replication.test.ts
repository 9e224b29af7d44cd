// Replication wiring of the generated StatefulSets, and the scripts in the ConfigMap: shellcheck on every
// shell script, the mongosh membership logic against a fake replica set, and the MySQL and MongoDB shell
// flows against stub binaries (no MySQL or MongoDB server can be installed here; PostgreSQL runs for real
// in postgresql-replication.test.ts).
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runInNewContext } from "node:vm";
import { afterAll, describe, expect, it } from "vitest";
import { childOf, type Loose, parent, sync } from "../support/database.js";

const SPECS = {
  postgresql: { engine: "postgresql", version: "16", replicas: 3, storage: { size: "10Gi" } },
  mysql: { engine: "mysql", version: "8.4", replicas: 3, storage: { size: "10Gi" } },
  mongodb: { engine: "mongodb", version: "8.0", replicas: 3, storage: { size: "10Gi" } },
} as const;
type Engine = keyof typeof SPECS;
const ENGINES = Object.keys(SPECS) as Engine[];

function answerFor(engine: Engine, replicas = 3) {
  const children = sync({ parent: parent({ ...SPECS[engine], replicas }), children: {} }).children;
  return {
    sts: childOf(children, "StatefulSet") as Loose,
    data: (childOf(children, "ConfigMap") as Loose).data as Record<string, string>,
    secret: (childOf(children, "Secret") as Loose).data as Loose,
  };
}

const work = mkdtempSync(join(tmpdir(), "dbhooks-scripts-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function writeScripts(engine: Engine): string {
  const dir = join(work, engine);
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(answerFor(engine).data)) writeFileSync(join(dir, name), text);
  return dir;
}

describe("the StatefulSet of a replicated Database", () => {
  it.each(ENGINES)("%s: every init step and the server share the image, env and mounts", (engine) => {
    const { sts, data } = answerFor(engine);
    const pod = sts.spec.template.spec;
    const server = pod.containers[0];
    expect(pod.initContainers.length).toBeGreaterThan(0);
    for (const init of pod.initContainers) {
      expect(init.image).toBe(server.image);
      expect(init.env).toEqual(server.env);
      expect(init.securityContext).toEqual(server.securityContext);
      expect(init.resources).toEqual(server.resources);
      expect(init.command[0]).toBe("bash");
      expect(Object.keys(data)).toContain(init.command[1].replace("/opt/dbhooks/", ""));
    }
    // Scripts under /opt/dbhooks, config files where the engine reads them: the same ConfigMap, split.
    const volumes = Object.fromEntries(pod.volumes.map((v: Loose) => [v.name, v]));
    const keys = (name: string) => volumes[name].configMap.items.map((i: Loose) => i.key);
    expect([...keys("config"), ...keys("scripts")].sort()).toEqual(Object.keys(data).sort());
    expect(keys("scripts").every((k: string) => /\.(sh|js)$/.test(k))).toBe(true);
    expect(server.volumeMounts).toContainEqual({
      name: "scripts",
      mountPath: "/opt/dbhooks",
      readOnly: true,
    });
  });

  it("PostgreSQL: pods bootstrap as standbys of the primary Service, with the Secret's replication password", () => {
    const { sts } = answerFor("postgresql");
    const [init] = sts.spec.template.spec.initContainers;
    expect(init.name).toBe("bootstrap-standby");
    expect(init.env).toEqual(
      expect.arrayContaining([
        { name: "PRIMARY_HOST", value: "orders-db-primary" },
        { name: "REPLICATION_USER", value: "replicator" },
        {
          name: "REPLICATION_PASSWORD",
          valueFrom: { secretKeyRef: { name: "orders-db-credentials", key: "replication-password" } },
        },
        { name: "PGDATA", value: "/var/lib/postgresql/data/pgdata" },
      ]),
    );
    expect(sts.spec.template.spec.containers[0].command).toBeUndefined();
  });

  it("MySQL: a clone step, the run wrapper and a readiness script that knows about replication", () => {
    const { sts, data } = answerFor("mysql");
    const server = sts.spec.template.spec.containers[0];
    expect(sts.spec.template.spec.initContainers.map((c: Loose) => c.name)).toEqual(["clone-primary"]);
    expect(server.command).toEqual(["bash", "/opt/dbhooks/mysql-run.sh"]);
    expect(server.readinessProbe.exec.command).toEqual(["bash", "/opt/dbhooks/mysql-ready.sh"]);
    expect(server.env).toContainEqual({
      name: "MEMBER_DOMAIN",
      value: "orders-db-headless.shop.svc.cluster.local",
    });
    expect(data["dbhooks.cnf"]).toContain("gtid_mode = ON\nenforce_gtid_consistency = ON\n");
  });

  it("MongoDB: the key file from the Secret through an init step, the set named in the URI", () => {
    const { sts, secret } = answerFor("mongodb");
    const pod = sts.spec.template.spec;
    const server = pod.containers[0];
    expect(pod.initContainers.map((c: Loose) => c.name)).toEqual(["install-keyfile"]);
    expect(pod.volumes).toContainEqual({
      name: "replica-set-key",
      secret: {
        secretName: "orders-db-credentials",
        items: [{ key: "replica-set-key", path: "key" }],
        defaultMode: 0o440,
      },
    });
    expect(pod.volumes).toContainEqual({ name: "keyfile", emptyDir: { medium: "Memory", sizeLimit: "1Mi" } });
    // The Secret volume reaches the init step only; the server reads the installed copy.
    expect(server.volumeMounts.map((m: Loose) => m.name)).not.toContain("replica-set-key");
    expect(server.volumeMounts).toContainEqual({
      name: "keyfile",
      mountPath: "/var/run/dbhooks/keyfile",
      readOnly: true,
    });
    expect(server.command).toEqual(["bash", "/opt/dbhooks/mongodb-run.sh"]);
    expect(server.args).toEqual(["mongod", "--config", "/etc/mongo/mongod.conf"]);
    expect(server.env).toEqual(
      expect.arrayContaining([
        { name: "REPLICA_SET", value: "orders" },
        { name: "REPLICAS", value: "3" },
      ]),
    );
    expect(server.readinessProbe.exec.command.join(" ")).toMatch(/isWritablePrimary \|\| hello\.secondary/);
    // Startup waits for mongod only: a new member's initial sync may take longer than any budget.
    expect(server.startupProbe.exec.command.join(" ")).toContain("ping");
    expect(Buffer.from(secret.uri, "base64").toString()).toMatch(/\?authSource=admin&replicaSet=orders$/);
    expect(Buffer.from(secret["replica-set-key"], "base64").toString()).toMatch(/^[A-Za-z0-9]{32}$/);
  });

  it("rolls MongoDB pods when the replica count changes, and no other engine's", () => {
    const checksumAndEnv = (engine: Engine, replicas: number) => {
      const { sts } = answerFor(engine, replicas);
      return JSON.stringify(sts.spec.template);
    };
    expect(checksumAndEnv("mongodb", 3)).not.toBe(checksumAndEnv("mongodb", 5));
    expect(checksumAndEnv("postgresql", 3)).toBe(checksumAndEnv("postgresql", 5));
    expect(checksumAndEnv("mysql", 3)).toBe(checksumAndEnv("mysql", 5));
  });
});

describe("shell scripts", () => {
  it.each(ENGINES)("%s: shellcheck finds nothing, at any severity", (engine) => {
    const dir = writeScripts(engine);
    const scripts = readdirSync(dir)
      .filter((f) => f.endsWith(".sh"))
      .map((f) => join(dir, f));
    expect(scripts.length).toBeGreaterThan(0);
    const result = spawnSync("shellcheck", ["--severity=style", "--shell=bash", ...scripts], {
      encoding: "utf8",
    });
    if (result.error)
      throw new Error(`shellcheck is not installed (apt-get install -y shellcheck, as .ci/run does)`);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.status).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------------
// mongodb-replset.js against a fake replica set: the shell API it uses is new Mongo(uri).getDB("admin"),
// auth, runCommand (which mongosh may make throw on ok: 0), print and quit.

const DOMAIN = "orders-db-headless.shop.svc.cluster.local";
const host = (k: number) => `orders-db-${k}.${DOMAIN}:27017`;

interface Call {
  readonly uri: string;
  readonly command: Loose;
}
type Handler = (uri: string, command: Loose) => Loose;

function runReplset(pod: number, replicas: number, handler: Handler) {
  const calls: Call[] = [];
  const auths: string[][] = [];
  const printed: string[] = [];
  class Mongo {
    constructor(private readonly uri: string) {}
    getDB(name: string) {
      expect(name).toBe("admin");
      const uri = this.uri;
      return {
        auth: (user: string, password: string) => auths.push([user, password]),
        runCommand: (command: Loose) => {
          calls.push({ uri, command });
          return handler(uri, command);
        },
      };
    }
  }
  let code: number | undefined;
  const script = answerFor("mongodb").data["mongodb-replset.js"] ?? "";
  try {
    runInNewContext(script, {
      process: {
        env: {
          HOSTNAME: `orders-db-${pod}`,
          REPLICAS: String(replicas),
          REPLICA_SET: "orders",
          MEMBER_DOMAIN: DOMAIN,
          ROOT_USERNAME: "root",
          ROOT_PASSWORD: "secret",
        },
      },
      Mongo,
      print: (text: string) => printed.push(text),
      quit: (exit: number) => {
        code = exit;
        throw new Error("quit");
      },
    });
  } catch (error) {
    if (code === undefined) throw error;
  }
  const writes = calls.filter((c) => c.command.replSetInitiate || c.command.replSetReconfig);
  return { code, calls, writes, auths, printed };
}

const config = (ids: number[], version = 3) => ({
  _id: "orders",
  version,
  term: 2,
  members: ids.map((k) => ({ _id: k, host: host(k), priority: k === 0 ? 2 : 1, votes: 1 })),
});
const status = (myState: number, health: Record<number, number>) => ({
  ok: 1,
  myState,
  members: Object.entries(health).map(([k, h]) => ({ _id: Number(k), health: h })),
});
const notYetInitialized = { ok: 0, code: 94, codeName: "NotYetInitialized", errmsg: "no replset config" };
const unreachable = () => {
  throw new Error("connection refused");
};

describe("mongodb-replset.js", () => {
  it("pod 0 initiates the set once, with itself at priority 2, authenticated as root", () => {
    const run = runReplset(0, 3, (uri, command) => {
      if (!uri.startsWith("mongodb://127.0.0.1")) return unreachable();
      return command.replSetGetStatus ? notYetInitialized : { ok: 1 };
    });
    expect(run.code).toBe(1); // checked again on the next round
    expect(run.auths[0]).toEqual(["root", "secret"]);
    expect(run.writes).toEqual([
      {
        uri: "mongodb://127.0.0.1:27017/?directConnection=true",
        command: { replSetInitiate: { _id: "orders", members: [{ _id: 0, host: host(0), priority: 2 }] } },
      },
    ]);
    // It asked pods 1 and 2 whether they already belong to a set, unauthenticated, before initiating.
    expect(run.calls.filter((c) => c.command.hello).map((c) => c.uri)).toEqual([
      `mongodb://${host(1)}/?directConnection=true&serverSelectionTimeoutMS=3000&connectTimeoutMS=3000`,
      `mongodb://${host(2)}/?directConnection=true&serverSelectionTimeoutMS=3000&connectTimeoutMS=3000`,
    ]);
  });

  it("pod 0 never initiates a second set when another pod already belongs to one", () => {
    const run = runReplset(0, 3, (uri, command) => {
      if (uri.includes(host(1))) return { ok: 1, setName: "orders" };
      if (uri.includes(host(2))) return unreachable();
      if (command.replSetGetStatus) throw Object.assign(new Error("no config"), { code: 94 });
      return { ok: 1 };
    });
    expect(run.code).toBe(1);
    expect(run.writes).toEqual([]);
    expect(run.printed.join("\n")).toContain("not initiating");
  });

  it("pod 0 waits while mongod is not yet running with --replSet (the entrypoint's first start)", () => {
    const run = runReplset(0, 1, (_uri, command) =>
      command.replSetGetStatus ? { ok: 0, code: 76, errmsg: "not running with --replSet" } : { ok: 1 },
    );
    expect(run.code).toBe(1);
    expect(run.writes).toEqual([]);
  });

  it("pod 0 is done when no member is beyond the replica count", () => {
    const run = runReplset(0, 3, (_uri, command) => {
      if (command.replSetGetStatus) return status(1, { 0: 1, 1: 1, 2: 0 });
      if (command.replSetGetConfig) return { ok: 1, config: config([0, 1, 2]) };
      return { ok: 1 };
    });
    expect(run.code).toBe(0);
    expect(run.writes).toEqual([]);
  });

  it("pod 0, primary, removes one stopped member beyond the replica count per reconfiguration", () => {
    const run = runReplset(0, 1, (_uri, command) => {
      if (command.replSetGetStatus) return status(1, { 0: 1, 1: 0, 2: 0 });
      if (command.replSetGetConfig) return { ok: 1, config: config([0, 1, 2]) };
      return { ok: 1 };
    });
    expect(run.code).toBe(1);
    expect(run.writes.map((w) => w.command)).toEqual([{ replSetReconfig: { ...config([0, 2], 4) } }]);
  });

  it("pod 0 waits while a member beyond the replica count still runs", () => {
    const run = runReplset(0, 2, (_uri, command) => {
      if (command.replSetGetStatus) return status(1, { 0: 1, 1: 1, 2: 1 });
      if (command.replSetGetConfig) return { ok: 1, config: config([0, 1, 2]) };
      return { ok: 1 };
    });
    expect(run.code).toBe(1);
    expect(run.writes).toEqual([]);
  });

  it("pod 0, left without a majority by a scale-down, forces the set down to the members that stay", () => {
    const run = runReplset(0, 1, (_uri, command) => {
      if (command.replSetGetStatus) return status(2, { 0: 1, 1: 0, 2: 0 });
      if (command.replSetGetConfig) return { ok: 1, config: config([0, 1, 2]) };
      return { ok: 1 };
    });
    expect(run.writes.map((w) => w.command)).toEqual([{ replSetReconfig: config([0], 4), force: true }]);
  });

  it("pod 0, a secondary with a majority left, leaves the removal to the primary", () => {
    const run = runReplset(0, 2, (_uri, command) => {
      if (command.replSetGetStatus) return status(2, { 0: 1, 1: 1, 2: 0 });
      if (command.replSetGetConfig) return { ok: 1, config: config([0, 1, 2]) };
      return { ok: 1 };
    });
    expect(run.code).toBe(1);
    expect(run.writes).toEqual([]);
  });

  it("another pod adds itself through the set's primary, and is then done", () => {
    const joining = runReplset(2, 3, (_uri, command) =>
      command.replSetGetConfig ? { ok: 1, config: config([0, 1]) } : { ok: 1 },
    );
    expect(joining.code).toBe(1);
    expect(joining.writes).toEqual([
      {
        uri: `mongodb://${host(0)},${host(1)}/?replicaSet=orders&serverSelectionTimeoutMS=10000`,
        command: {
          replSetReconfig: {
            ...config([0, 1], 4),
            members: [...config([0, 1]).members, { _id: 2, host: host(2), priority: 1 }],
          },
        },
      },
    ]);
    const joined = runReplset(2, 3, () => ({ ok: 1, config: config([0, 1, 2]) }));
    expect(joined.code).toBe(0);
    expect(joined.writes).toEqual([]);
  });

  it("retries when no primary answers", () => {
    const run = runReplset(1, 3, () => {
      throw new Error("Server selection timed out");
    });
    expect(run.code).toBe(1);
    expect(run.printed.join("\n")).toMatch(/no primary|will retry/);
  });
});

describe("MongoDB readiness", () => {
  const probe = () => answerFor("mongodb").sts.spec.template.spec.containers[0].readinessProbe.exec.command;
  const readiness = (hello: Loose) => {
    const command = probe() as string[];
    let code: number | undefined;
    try {
      runInNewContext(command[command.length - 1] ?? "", {
        db: { adminCommand: (c: Loose) => (c.hello === 1 ? hello : {}) },
        quit: (exit: number) => {
          code = exit;
          throw new Error("quit");
        },
      });
    } catch {
      // quit
    }
    return code;
  };

  it("is ready as PRIMARY or SECONDARY only, unauthenticated (hello needs no login)", () => {
    expect(probe().slice(0, 4)).toEqual(["mongosh", "--quiet", "--norc", "--eval"]);
    expect(readiness({ isWritablePrimary: true, secondary: false })).toBe(0);
    expect(readiness({ isWritablePrimary: false, secondary: true })).toBe(0);
    expect(readiness({ isWritablePrimary: false, secondary: false, info: "no replset config" })).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------------
// The shell flows against stub binaries that record how they were called.

function stubDir(name: string, stubs: Record<string, string>): { bin: string; log: string } {
  const bin = join(work, `${name}-bin`);
  const log = join(work, `${name}.log`);
  mkdirSync(bin, { recursive: true });
  writeFileSync(log, "");
  for (const [stub, body] of Object.entries(stubs)) {
    writeFileSync(join(bin, stub), `#!/bin/bash\necho "$(basename "$0") $*" >> "${log}"\n${body}\n`);
    chmodSync(join(bin, stub), 0o755);
  }
  return { bin, log };
}

function runScript(script: string, env: Record<string, string>, bin: string) {
  // stdin is /dev/null: bash reads ~/.bashrc when its stdin is a socket, as Node's pipes are.
  return spawnSync("bash", [script], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: `${bin}:/usr/bin:/bin`, ...env },
    timeout: 30_000,
  });
}

describe("mysql-clone.sh and mysql-run.sh", () => {
  const dir = writeScripts("mysql");
  // mysql: answers the plugin query with 0, copies stdin (the SQL) to the log, and "clones": the data
  // directory named in CLONE INSTANCE gets a mysql schema and a tablespace.
  const { bin, log } = stubDir("mysql", {
    mysql: `sql="$(cat 2>/dev/null || true)"
case "$*" in *"information_schema.PLUGINS"*) echo 0; exit 0 ;; esac
printf '%s\\n' "$sql" >> "${join(work, "mysql.log")}"
if [[ "$sql" =~ DATA\\ DIRECTORY\\ =\\ \\'([^\\']+)\\' ]]; then mkdir -p "\${BASH_REMATCH[1]}/mysql"; touch "\${BASH_REMATCH[1]}/mysql.ibd"; fi`,
    mysqld: `for a; do case "$a" in --initialize-insecure) init=1 ;; --datadir=*) d="\${a#--datadir=}" ;; esac; done
if [ -n "\${init:-}" ]; then mkdir -p "$d/mysql"; fi`,
    mysqladmin: "exit 0",
    "docker-entrypoint.sh": "exit 0",
  });
  const datadir = join(work, "mysql-data");
  const env = (pod: number) => ({
    HOSTNAME: `orders-db-${pod}`,
    MYSQL_DATADIR: datadir,
    PRIMARY_HOST: "orders-db-primary",
    REPLICATION_USER: "replicator",
    REPLICATION_PASSWORD: "it's\\secret",
    MYSQL_ROOT_PASSWORD: "root-pw",
    MEMBER_DOMAIN: DOMAIN,
  });

  it("clones an empty replica once, records the source with auto-position, moves the data in last", () => {
    mkdirSync(join(datadir, "lost+found"), { recursive: true });
    const result = runScript(join(dir, "mysql-clone.sh"), env(1), bin);
    expect(result.status, result.stderr).toBe(0);
    expect(readdirSync(datadir).sort()).toEqual([".dbhooks-replica", "lost+found", "mysql", "mysql.ibd"]);
    const sql = spawnSync("cat", [log], { encoding: "utf8" }).stdout;
    // The SQL: quotes doubled, backslashes literal under NO_BACKSLASH_ESCAPES; the password never on a
    // command line.
    expect(sql).toContain("INSTALL PLUGIN clone SONAME 'mysql_clone.so'");
    expect(sql).toContain("CREATE USER IF NOT EXISTS 'replicator'@'%' IDENTIFIED BY 'it''s\\secret';");
    expect(sql).toContain("GRANT REPLICATION SLAVE, BACKUP_ADMIN ON *.* TO 'replicator'@'%';");
    expect(sql).toContain("SET GLOBAL clone_valid_donor_list = 'orders-db-primary:3306';");
    expect(sql).toMatch(
      /CLONE INSTANCE FROM 'replicator'@'orders-db-primary':3306\s+IDENTIFIED BY 'it''s\\secret'/,
    );
    expect(sql).toMatch(/SOURCE_AUTO_POSITION = 1, SOURCE_SSL = 1/);
    expect(sql.split("NO_BACKSLASH_ESCAPES").length - 1).toBe(3);
    expect(sql).toMatch(
      /mysqld --no-defaults --datadir=\S+\/data .*--server-id=2 --skip-replica-start --gtid-mode=ON/,
    );
    expect(sql).not.toMatch(/^(mysql|mysqladmin) .*it''?s/m);
  });

  it("resumes a replica that has its data, and leaves a database it did not clone untouched", () => {
    const resume = runScript(join(dir, "mysql-clone.sh"), env(1), bin);
    expect(resume.status).toBe(0);
    expect(resume.stderr).toContain("replication resumes");
    rmSync(join(datadir, ".dbhooks-replica"));
    const refuse = runScript(join(dir, "mysql-clone.sh"), env(2), bin);
    expect(refuse.status).toBe(1);
    expect(refuse.stderr).toContain("was not cloned from pod 0");
    expect(existsSync(join(datadir, "mysql"))).toBe(true);
    expect(runScript(join(dir, "mysql-clone.sh"), env(0), bin).stderr).toContain("pod 0 is the primary");
  });

  it("runs pod 0 writable and the replicas read-only, each with its own server_id", () => {
    writeFileSync(log, "");
    for (const pod of [0, 2]) expect(runScript(join(dir, "mysql-run.sh"), env(pod), bin).status).toBe(0);
    const calls = spawnSync("cat", [log], { encoding: "utf8" }).stdout.trim().split("\n");
    expect(calls).toEqual([
      `docker-entrypoint.sh mysqld --server-id=1 --report-host=orders-db-0.${DOMAIN}`,
      `docker-entrypoint.sh mysqld --server-id=3 --report-host=orders-db-2.${DOMAIN} --read-only=ON --super-read-only=ON`,
    ]);
  });
});

describe("mongodb-run.sh and mongodb-keyfile.sh", () => {
  const dir = writeScripts("mongodb");
  const { bin, log } = stubDir("mongodb", {
    // The entrypoint stub records what the server would see, then runs until it is signalled.
    "docker-entrypoint.sh": `echo "root=\${MONGO_INITDB_ROOT_USERNAME:-unset}" >> "${join(work, "mongodb.log")}"
trap 'kill "$sleeper"; echo "mongod got TERM" >> "${join(work, "mongodb.log")}"; exit 0' TERM
sleep 30 >/dev/null 2>&1 &
sleeper=$!
wait`,
    mongosh: "exit 0",
  });
  const dbpath = join(work, "mongo-data");
  const env = (pod: number) => ({
    HOSTNAME: `orders-db-${pod}`,
    MONGO_DBPATH: dbpath,
    REPLICA_SET: "orders",
    KEYFILE: join(work, "keyfile"),
    MONGO_INITDB_ROOT_USERNAME: "root",
    MONGO_INITDB_ROOT_PASSWORD: "pw",
  });

  it("installs the key owned by this user with mode 0400, replacing an earlier copy", () => {
    writeFileSync(join(work, "key-source"), "abc123");
    for (let i = 0; i < 2; i += 1) {
      const result = runScript(
        join(dir, "mongodb-keyfile.sh"),
        { KEYFILE_SOURCE: join(work, "key-source"), KEYFILE: join(work, "keyfile") },
        bin,
      );
      expect(result.status, result.stderr).toBe(0);
    }
    const stat = spawnSync("stat", ["-c", "%a %u", join(work, "keyfile")], {
      encoding: "utf8",
    }).stdout.trim();
    expect(stat).toBe(`400 ${process.getuid?.()}`);
  });

  it("passes --replSet and --keyFile, lets only pod 0 create the root user, and forwards SIGTERM", async () => {
    mkdirSync(dbpath, { recursive: true });
    for (const pod of [0, 1]) {
      writeFileSync(log, "");
      const child = spawnSync(
        "bash",
        [
          "-c",
          `bash "$0" mongod --config c & pid=$!; sleep 1; kill -TERM $pid; wait $pid`,
          join(dir, "mongodb-run.sh"),
        ],
        {
          encoding: "utf8",
          stdio: ["ignore", "pipe", "pipe"],
          env: { PATH: `${bin}:/usr/bin:/bin`, ...env(pod) },
          timeout: 20_000,
        },
      );
      expect(child.status, child.stderr).toBe(0);
      const lines = spawnSync("cat", [log], { encoding: "utf8" }).stdout;
      expect(lines).toContain(
        `docker-entrypoint.sh mongod --config c --replSet orders --keyFile ${join(work, "keyfile")}`,
      );
      expect(lines).toContain(pod === 0 ? "root=root" : "root=unset");
      expect(lines).toContain("mongod got TERM");
    }
    expect(existsSync(join(dbpath, ".dbhooks-member"))).toBe(true);
  });

  it("leaves data that did not start as a member untouched on pods 1..n-1", () => {
    const other = join(work, "standalone-data");
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, "WiredTiger"), "");
    const result = runScript(join(dir, "mongodb-run.sh"), { ...env(1), MONGO_DBPATH: other }, bin);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("did not start as a member");
  });
});
