// Streaming replication for real: Debian's PostgreSQL runs the postgresql.conf, pg_hba.conf and
// bootstrap-standby.sh of a sync answer, byte for byte. Only what differs between a pod and this machine
// is substituted: the data directories, the primary's host and port (environment variables the script
// reads, with the pod's values as defaults), and the listen address, port and socket directory (server
// command-line options, which override the config file). The credentials are the answer's Secret.
// The server binaries must be installed (.ci/run installs them): without them this test fails.
import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childOf, type Loose, POSTGRES, parent, sync } from "../support/database.js";

const PG_ROOT = "/usr/lib/postgresql";

/** The newest installed server's bin directory, or DBHOOKS_PG_BIN. */
function postgresBin(): string {
  const fromEnv = process.env.DBHOOKS_PG_BIN;
  if (fromEnv) return fromEnv;
  const versions = existsSync(PG_ROOT)
    ? readdirSync(PG_ROOT)
        .filter((v) => existsSync(join(PG_ROOT, v, "bin", "postgres")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0]) {
    throw new Error(
      `no PostgreSQL server under ${PG_ROOT}/<version>/bin: install it (apt-get install -y postgresql, as .ci/run does) or set DBHOOKS_PG_BIN`,
    );
  }
  return join(PG_ROOT, versions[0], "bin");
}

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject()));
    });
  });
}

const answer = sync({ parent: parent({ ...POSTGRES, replicas: 3 }), children: {} });
const config = (childOf(answer.children, "ConfigMap") as Loose).data as Record<string, string>;
const secret = (childOf(answer.children, "Secret") as Loose).data as Record<string, string>;
const fromSecret = (key: string) => Buffer.from(secret[key] ?? "", "base64").toString("utf8");
const podEnv = (childOf(answer.children, "StatefulSet") as Loose).spec.template.spec.initContainers[0]
  .env as Loose[];
const envValue = (name: string) => podEnv.find((e) => e.name === name)?.value as string;

const superuser = fromSecret("username");
const superuserPassword = fromSecret("password");

describe("PostgreSQL streaming replication with the generated configuration and bootstrap", () => {
  let bin = "";
  let work = "";
  let asPostgres: string[] = [];
  const started: string[] = [];
  const ports = { primary: 0, standby: 0 };
  const paths = {
    conf: "",
    script: "",
    primary: "",
    // Like the pod: the volume is mounted at .../data and PGDATA is a subfolder of it.
    standby: "",
  };

  /** Runs a server-side command as the unprivileged postgres user when the tests run as root. */
  function run(command: string[], env: Record<string, string> = {}) {
    const [file, ...args] = [...asPostgres, ...command];
    return spawnSync(file as string, args, {
      encoding: "utf8",
      // stdin is /dev/null: bash reads ~/.bashrc when its stdin is a socket, as Node's pipes are.
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: `${bin}:/usr/bin:/bin`, LANG: "C.UTF-8", ...env },
      timeout: 120_000,
    });
  }

  function mustRun(command: string[], env: Record<string, string> = {}) {
    const result = run(command, env);
    if (result.status !== 0)
      throw new Error(`${command.join(" ")} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
    return result;
  }

  function startServer(dataDir: string, port: number) {
    const options = [
      `-c config_file=${paths.conf}/postgresql.conf`,
      `-c hba_file=${paths.conf}/pg_hba.conf`,
      `-c listen_addresses=127.0.0.1`,
      `-p ${port}`,
      `-c unix_socket_directories=${work}`,
    ].join(" ");
    mustRun([
      `${bin}/pg_ctl`,
      "-D",
      dataDir,
      "-l",
      `${dataDir}.log`,
      "-w",
      "-t",
      "60",
      "-o",
      options,
      "start",
    ]);
    if (!started.includes(dataDir)) started.push(dataDir);
  }

  function stopServer(dataDir: string, mode = "fast") {
    return run([`${bin}/pg_ctl`, "-D", dataDir, "-m", mode, "-w", "-t", "60", "stop"]);
  }

  function psql(port: number, sql: string, database = "app") {
    return spawnSync(`${bin}/psql`, ["-X", "-A", "-t", "-h", "127.0.0.1", "-p", String(port)], {
      encoding: "utf8",
      input: sql,
      env: { PATH: "/usr/bin:/bin", PGUSER: superuser, PGPASSWORD: superuserPassword, PGDATABASE: database },
      timeout: 30_000,
    });
  }

  function query(port: number, sql: string): string {
    const result = psql(port, `\\set ON_ERROR_STOP on\n${sql}`);
    if (result.status !== 0) throw new Error(`psql -p ${port}: ${result.stderr}`);
    return result.stdout.trim();
  }

  /** Until `read` returns `expected`; errors (a table the standby has not replayed yet) are retried. */
  async function eventually(read: () => string, expected: string, seconds = 20): Promise<void> {
    const deadline = Date.now() + seconds * 1000;
    let last = "";
    while (Date.now() < deadline) {
      try {
        last = read();
      } catch (error) {
        last = String(error);
      }
      if (last === expected) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(last).toBe(expected);
  }

  /** bootstrap-standby.sh as the init container runs it, in pod `pod`. */
  function bootstrap(pod: string, pgdata: string) {
    return run(["bash", paths.script], {
      HOSTNAME: pod,
      PGDATA: pgdata,
      PRIMARY_HOST: "127.0.0.1",
      PRIMARY_PORT: String(ports.primary),
      REPLICATION_USER: envValue("REPLICATION_USER"),
      REPLICATION_PASSWORD: fromSecret("replication-password"),
      POSTGRES_USER: superuser,
      POSTGRES_PASSWORD: superuserPassword,
      PRIMARY_WAIT_SECONDS: "30",
    });
  }

  beforeAll(async () => {
    bin = postgresBin();
    work = mkdtempSync(join(tmpdir(), "dbhooks-pg-"));
    paths.conf = join(work, "conf");
    paths.script = join(paths.conf, "bootstrap-standby.sh");
    paths.primary = join(work, "primary");
    paths.standby = join(work, "standby-volume", "pgdata");
    mkdirSync(paths.conf);
    mkdirSync(join(work, "standby-volume"));
    for (const name of ["postgresql.conf", "pg_hba.conf", "bootstrap-standby.sh"]) {
      writeFileSync(join(paths.conf, name), config[name] ?? "");
    }
    writeFileSync(join(work, "pwfile"), `${superuserPassword}\n`);
    if (process.getuid?.() === 0) {
      // postgres refuses to run as root: initdb, the servers and the script run as the postgres user.
      const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }));
      const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }));
      for (const path of [work, paths.conf, join(work, "standby-volume"), join(work, "pwfile")])
        chownSync(path, uid, gid);
      asPostgres = ["setpriv", `--reuid=${uid}`, `--regid=${gid}`, "--init-groups", "--"];
    }
    [ports.primary, ports.standby] = [await freePort(), await freePort()];

    // Pod 0's first start, as the image's entrypoint does it: initdb with the Secret's superuser, then
    // the app database.
    mustRun([
      `${bin}/initdb`,
      `--username=${superuser}`,
      `--pwfile=${join(work, "pwfile")}`,
      "--encoding=UTF8",
      "-D",
      paths.primary,
    ]);
    rmSync(join(work, "pwfile"));
    startServer(paths.primary, ports.primary);
    const created = psql(ports.primary, `CREATE DATABASE ${fromSecret("database")}`, "postgres");
    if (created.status !== 0) throw new Error(created.stderr);
  }, 120_000);

  afterAll(() => {
    for (const dataDir of started) stopServer(dataDir, "immediate");
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("does nothing on pod 0", () => {
    const result = bootstrap("orders-db-0", join(work, "pod0-pgdata"));
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain("pod 0 is the primary");
    expect(existsSync(join(work, "pod0-pgdata"))).toBe(false);
  });

  it("copies the primary into pod 1's empty volume, and the standby streams from it", () => {
    const result = bootstrap("orders-db-1", paths.standby);
    expect(result.status, result.stderr).toBe(0);
    expect(existsSync(join(paths.standby, "standby.signal"))).toBe(true);
    expect(existsSync(`${paths.standby}.bootstrap`)).toBe(false);
    startServer(paths.standby, ports.standby);
    expect(query(ports.standby, "SELECT pg_is_in_recovery()")).toBe("t");
  }, 120_000);

  it("replicates a write on the primary to the standby", async () => {
    query(
      ports.primary,
      "CREATE TABLE orders (id int PRIMARY KEY, item text); INSERT INTO orders VALUES (1, 'tea')",
    );
    await eventually(() => query(ports.standby, "SELECT item FROM orders WHERE id = 1").trim(), "tea");
  }, 60_000);

  it("shows the standby in pg_stat_replication, streaming as the replication role", async () => {
    await eventually(
      () =>
        query(
          ports.primary,
          "SELECT application_name || ' ' || usename || ' ' || state FROM pg_stat_replication",
        ),
      `orders-db-1 ${envValue("REPLICATION_USER")} streaming`,
    );
  }, 60_000);

  it("refuses writes on the standby", () => {
    const result = psql(ports.standby, "\\set ON_ERROR_STOP on\nINSERT INTO orders VALUES (2, 'coffee')");
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/read-only transaction/);
  });

  it("refuses replication and superuser access without the right password", () => {
    const wrong = spawnSync(
      `${bin}/psql`,
      ["-X", "-h", "127.0.0.1", "-p", String(ports.primary), "-c", "SELECT 1"],
      {
        encoding: "utf8",
        env: { PATH: "/usr/bin:/bin", PGUSER: superuser, PGPASSWORD: "wrong", PGDATABASE: "app" },
      },
    );
    expect(wrong.status).not.toBe(0);
    expect(wrong.stderr).toMatch(/password authentication failed/);
    expect(config["pg_hba.conf"]).not.toMatch(/\b(trust|md5|password)\s*$/m);
  });

  it("resumes after a restart without a new base backup", async () => {
    expect(stopServer(paths.standby).status).toBe(0);
    const marker = join(paths.standby, "dbhooks-test-marker");
    mustRun(["touch", marker]); // a new base backup would replace the directory and lose this file
    const result = bootstrap("orders-db-1", paths.standby);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain("resuming replication without a new base backup");
    expect(existsSync(marker)).toBe(true);
    startServer(paths.standby, ports.standby);
    query(ports.primary, "INSERT INTO orders VALUES (3, 'cocoa')");
    await eventually(() => query(ports.standby, "SELECT item FROM orders WHERE id = 3"), "cocoa");
    expect(query(ports.standby, "SELECT pg_is_in_recovery()")).toBe("t");
  }, 120_000);

  it("leaves a replica volume that holds a database but no standby untouched, and fails", () => {
    const result = bootstrap("orders-db-2", paths.primary);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("is not a standby of pod 0");
    expect(existsSync(join(paths.primary, "standby.signal"))).toBe(false);
  });

  it("is given the server's settings that replication needs", () => {
    const conf = config["postgresql.conf"] ?? "";
    for (const line of ["wal_level = replica", "max_wal_senders = 10", "hot_standby = on"])
      expect(conf).toContain(line);
    expect(conf).toMatch(/^wal_keep_size = \d+MB$/m);
    expect(query(ports.primary, "SHOW wal_level")).toBe("replica");
  });
});
