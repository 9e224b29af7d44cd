// A real etcd + kube-apiserver for e2e tests, started as plain processes the way envtest does it.
//
//   const cp = await startControlPlane();
//   const core = cp.kubeConfig.makeApiClient(CoreV1Api);
//   ...
//   await cp.stop();
//
// Binaries come from DBHOOKS_CONTROL_PLANE_BIN when set, else from scripts/control-plane/build.sh
// (which builds them once into a cache folder outside the repo and prints the bin folder).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readFileSync, rmSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { Agent, request } from "node:https";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { KubeConfig } from "@kubernetes/client-node";

const execFileAsync = promisify(execFile);

/** scripts/control-plane/build.sh of this repository. */
export const BUILD_SCRIPT = fileURLToPath(
  new URL("../../../scripts/control-plane/build.sh", import.meta.url),
);

export interface ControlPlaneOptions {
  /** Folder holding `etcd` and `kube-apiserver`. Default: $DBHOOKS_CONTROL_PLANE_BIN, else the build script's output. */
  binDir?: string;
  /** How long to wait for etcd, then kube-apiserver, to become ready (each). Default 120 s. */
  startTimeoutMs?: number;
  /** Extra kube-apiserver flags, appended last (e.g. `--feature-gates=...`). */
  apiServerArgs?: string[];
  /** Keep the temp folder (logs, kubeconfig, etcd data) after stop(). Default: $DBHOOKS_KEEP_CONTROL_PLANE === "1". */
  keepTempDir?: boolean;
}

export interface ControlPlane {
  /** A kubeconfig file (token auth, CA from the apiserver's self-signed cert) in the temp folder. */
  kubeconfigPath: string;
  /** The same, loaded: use kubeConfig.makeApiClient(CoreV1Api) etc. */
  kubeConfig: KubeConfig;
  /** https://127.0.0.1:<port> */
  server: string;
  /** Bearer token of the `admin` user, group system:masters. */
  token: string;
  /** PEM of the apiserver's serving cert chain (usable as a CA bundle). */
  caPem: string;
  /** http://127.0.0.1:<port> */
  etcdUrl: string;
  /** Temp folder with etcd.log, kube-apiserver.log, kubeconfig, certs. */
  dir: string;
  /**
   * Starts kube-controller-manager with only these controllers. Call it after creating the CRDs the test
   * needs: the garbage collector refreshes its view of the API only every 30 s.
   */
  startControllers(controllers: string[]): void;
  /** Stops kube-apiserver and etcd (SIGTERM, SIGKILL after a few seconds) and removes the temp folder. Idempotent. */
  stop(): Promise<void>;
}

interface Running {
  children: ChildProcess[];
  dir: string;
  keep: boolean;
  reaper?: ChildProcess;
}

const running = new Set<Running>();
let handlersInstalled = false;
let binDirPromise: Promise<string> | undefined;

/** Runs the build script once per process (it returns in about a second when the binaries exist). */
export function ensureControlPlaneBinaries(): Promise<string> {
  const fromEnv = process.env.DBHOOKS_CONTROL_PLANE_BIN;
  if (fromEnv) return Promise.resolve(fromEnv);
  binDirPromise ??= runBuildScript().catch((err: unknown) => {
    binDirPromise = undefined;
    throw err;
  });
  return binDirPromise;
}

function runBuildScript(): Promise<string> {
  return new Promise((resolve, reject) => {
    // stderr (build progress) goes straight to ours; stdout's last line is the bin folder.
    const child = spawn("bash", [BUILD_SCRIPT], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      out += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const last = out.trim().split("\n").pop()?.trim();
      if (code === 0 && last) resolve(last);
      else reject(new Error(`${BUILD_SCRIPT} failed (exit ${code}); stdout: ${out.slice(-2000)}`));
    });
  });
}

/** Starts etcd and kube-apiserver on free loopback ports and waits until the API is usable. */
export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const binDir = opts.binDir ?? (await ensureControlPlaneBinaries());
  const timeoutMs = opts.startTimeoutMs ?? 120_000;
  const dir = await mkdtemp(join(tmpdir(), "dbhooks-control-plane-"));
  const state: Running = {
    children: [],
    dir,
    keep: opts.keepTempDir ?? process.env.DBHOOKS_KEEP_CONTROL_PLANE === "1",
  };
  installProcessHandlers();
  running.add(state);
  const stop = once(() => stopRunning(state));
  try {
    const controlPlane = await boot(
      { binDir, dir, timeoutMs, state, apiServerArgs: opts.apiServerArgs ?? [] },
      stop,
    );
    // Without it nothing creates Pods or garbage-collects: tests play the controllers they need.
    const startControllers = (controllers: string[]) =>
      startControllerManager(state, binDir, controlPlane.kubeconfigPath, controllers);
    return { ...controlPlane, startControllers };
  } catch (err) {
    await stop();
    throw err;
  }
}

interface BootParams {
  binDir: string;
  dir: string;
  timeoutMs: number;
  state: Running;
  apiServerArgs: string[];
}

async function boot(
  p: BootParams,
  stop: () => Promise<void>,
): Promise<Omit<ControlPlane, "startControllers">> {
  const { binDir, dir, timeoutMs, state } = p;
  const [etcdPort = 0, peerPort = 0, apiPort = 0] = await freePorts(3);
  const etcdUrl = `http://127.0.0.1:${etcdPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const server = `https://127.0.0.1:${apiPort}`;
  const token = randomBytes(24).toString("hex");
  const certDir = join(dir, "certs");
  await mkdir(certDir);
  await mkdir(join(dir, "etcd-data"), { mode: 0o700 });
  await writeFile(join(dir, "tokens.csv"), `${token},admin,admin,"system:masters"\n`, { mode: 0o600 });
  await makeServiceAccountKeys(dir);
  startReaper(state);

  const etcd = launch(state, join(binDir, "etcd"), etcdArgs(dir, etcdUrl, peerUrl), "etcd");
  await waitFor("etcd", etcd, timeoutMs, () => etcdHealthy(etcdUrl));

  const apiArgs = [...apiServerArgs({ dir, certDir, etcdUrl, apiPort }), ...p.apiServerArgs];
  const apiserver = launch(state, join(binDir, "kube-apiserver"), apiArgs, "kube-apiserver");
  // The serving cert is self-signed and written to cert-dir at startup: trust nothing until we have it.
  const insecure = new Agent({ rejectUnauthorized: false });
  await waitFor("kube-apiserver", apiserver, timeoutMs, () => httpsOk(`${server}/readyz`, token, insecure));
  insecure.destroy();

  const caPem = await readFile(join(certDir, "apiserver.crt"), "utf8");
  const kubeconfigPath = join(dir, "kubeconfig");
  await writeFile(kubeconfigPath, kubeconfigYaml(server, token, caPem), { mode: 0o600 });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);

  // readyz is true before the system namespaces exist; wait for `default`, through the CA this time.
  const verified = new Agent({ ca: caPem });
  await waitFor("the default namespace", apiserver, timeoutMs, () =>
    httpsOk(`${server}/api/v1/namespaces/default`, token, verified),
  );
  verified.destroy();

  return { kubeconfigPath, kubeConfig, server, token, caPem, etcdUrl, dir, stop };
}

/**
 * kube-controller-manager with only the given controllers, no serving port and no leader election. Its
 * readiness is not awaited: the garbage collector syncs discovery in a few seconds, and tests wait for
 * its effects.
 */
function startControllerManager(
  state: Running,
  binDir: string,
  kubeconfig: string,
  controllers: string[],
): void {
  launch(
    state,
    join(binDir, "kube-controller-manager"),
    [
      `--kubeconfig=${kubeconfig}`,
      `--controllers=${controllers.join(",")}`,
      "--leader-elect=false",
      "--secure-port=0",
      "--use-service-account-credentials=false",
      "--v=1",
    ],
    "kube-controller-manager",
  );
}

function etcdArgs(dir: string, clientUrl: string, peerUrl: string): string[] {
  return [
    "--name=default",
    `--data-dir=${join(dir, "etcd-data")}`,
    `--listen-client-urls=${clientUrl}`,
    `--advertise-client-urls=${clientUrl}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=default=${peerUrl}`,
    "--initial-cluster-state=new",
    "--unsafe-no-fsync=true",
    "--log-level=warn",
  ];
}

function apiServerArgs(a: { dir: string; certDir: string; etcdUrl: string; apiPort: number }): string[] {
  return [
    `--etcd-servers=${a.etcdUrl}`,
    `--secure-port=${a.apiPort}`,
    "--bind-address=127.0.0.1",
    "--advertise-address=127.0.0.1",
    `--cert-dir=${a.certDir}`,
    `--service-account-key-file=${join(a.dir, "sa.pub")}`,
    `--service-account-signing-key-file=${join(a.dir, "sa.key")}`,
    "--service-account-issuer=https://kubernetes.default.svc",
    `--token-auth-file=${join(a.dir, "tokens.csv")}`,
    "--authorization-mode=RBAC",
    "--service-cluster-ip-range=10.0.0.0/24",
    // No kube-controller-manager: nothing would create the service-account tokens it waits for.
    "--disable-admission-plugins=ServiceAccount",
    "--allow-privileged=true",
    // Nothing else answers on the loopback address it would publish as the `kubernetes` endpoints.
    "--endpoint-reconciler-type=none",
    "--v=1",
  ];
}

function kubeconfigYaml(server: string, token: string, caPem: string): string {
  const ca = Buffer.from(caPem).toString("base64");
  // JSON is YAML; KubeConfig.loadFromFile and kubectl both read it.
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "dbhooks-e2e", cluster: { server, "certificate-authority-data": ca } }],
    users: [{ name: "admin", user: { token } }],
    contexts: [
      { name: "dbhooks-e2e", context: { cluster: "dbhooks-e2e", user: "admin", namespace: "default" } },
    ],
    "current-context": "dbhooks-e2e",
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

async function makeServiceAccountKeys(dir: string): Promise<void> {
  const key = join(dir, "sa.key");
  await execFileAsync("openssl", ["genrsa", "-out", key, "2048"]);
  await execFileAsync("openssl", ["rsa", "-in", key, "-pubout", "-out", join(dir, "sa.pub")]);
}

/** Ports the OS hands out for port 0 on 127.0.0.1, all held open together so they differ. */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const srv = createServer();
          srv.once("error", reject);
          srv.listen(0, "127.0.0.1", () => resolve(srv));
        }),
    ),
  );
  const ports = servers.map((s) => {
    const addr = s.address();
    if (addr === null || typeof addr === "string") throw new Error("unexpected server address");
    return addr.port;
  });
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

interface Proc {
  name: string;
  child: ChildProcess;
  logPath: string;
}

function launch(state: Running, bin: string, args: string[], name: string): Proc {
  const logPath = join(state.dir, `${name}.log`);
  const fd = openSync(logPath, "a");
  let child: ChildProcess;
  try {
    child = spawn(bin, args, { stdio: ["ignore", fd, fd], cwd: state.dir });
  } finally {
    closeSync(fd);
  }
  // A spawn failure (ENOENT, EACCES) shows up in waitFor as an exited process; don't crash on it.
  child.on("error", (err) => {
    spawnErrors.set(child, err);
  });
  // A forgotten stop() must not keep the test process alive: the exit handler (or the reaper) kills them.
  child.unref();
  state.children.push(child);
  if (state.reaper?.stdin && child.pid) state.reaper.stdin.write(`${child.pid}\n`);
  return { name, child, logPath };
}

const spawnErrors = new WeakMap<ChildProcess, Error>();

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null || child.pid === undefined;
}

async function waitFor(
  what: string,
  proc: Proc,
  timeoutMs: number,
  probe: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const { child } = proc;
  while (Date.now() < deadline) {
    const spawnError = spawnErrors.get(child);
    if (spawnError) throw new Error(`could not start ${proc.name}: ${spawnError.message}`);
    if (hasExited(child)) {
      const how = `code ${child.exitCode}, signal ${child.signalCode}`;
      throw new Error(`${proc.name} exited (${how}) before ${what} was ready${logTail(proc.logPath)}`);
    }
    if (await probe().catch(() => false)) return;
    await sleep(200);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${logTail(proc.logPath)}`);
}

function logTail(path: string, lines = 40): string {
  try {
    const text = readFileSync(path, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
    return `\n--- last ${lines} lines of ${path} ---\n${text}`;
  } catch {
    return "";
  }
}

async function etcdHealthy(url: string): Promise<boolean> {
  const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
  if (!res.ok) return false;
  const body = (await res.json()) as { health?: string };
  return body.health === "true";
}

function httpsOk(url: string, token: string, agent: Agent): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { agent, headers: { authorization: `Bearer ${token}` }, timeout: 2000 },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end();
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let p: Promise<void> | undefined;
  return () => {
    p ??= fn();
    return p;
  };
}

async function terminate(child: ChildProcess, graceMs: number): Promise<void> {
  if (hasExited(child)) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

async function stopRunning(state: Running): Promise<void> {
  // kube-apiserver first (it would otherwise log etcd errors), then etcd.
  for (const child of [...state.children].reverse()) await terminate(child, 5000);
  killReaper(state);
  running.delete(state);
  if (!state.keep) await rm(state.dir, { recursive: true, force: true });
}

/**
 * A detached shell that outlives us: if this process dies without running its handlers (SIGKILL, e.g. a
 * vitest worker killed on timeout), the pipe we write child pids into closes, and the shell kills those
 * children and removes the temp folder. On a normal stop it is killed first.
 */
function startReaper(state: Running): void {
  const script = `
pids=""
while read -r pid; do pids="$pids $pid"; done
for p in $pids; do kill -TERM "$p" 2>/dev/null; done
sleep 3
for p in $pids; do kill -KILL "$p" 2>/dev/null; done
[ "$2" = keep ] || rm -rf -- "$1"
`;
  const reaper = spawn("sh", ["-c", script, "reaper", state.dir, state.keep ? "keep" : "rm"], {
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
  });
  reaper.on("error", () => {});
  reaper.stdin?.on("error", () => {});
  // Neither the shell nor our end of its pipe may keep this process alive.
  reaper.unref();
  (reaper.stdin as (Writable & { unref?: () => void }) | null)?.unref?.();
  state.reaper = reaper;
}

function killReaper(state: Running): void {
  const reaper = state.reaper;
  if (!reaper) return;
  state.reaper = undefined;
  // Kill it before closing the pipe: end-of-file is its cue to kill the children and delete the folder.
  if (reaper.pid !== undefined) {
    try {
      process.kill(-reaper.pid, "SIGKILL"); // detached: it leads its own process group
    } catch {
      // already gone
    }
  }
  reaper.stdin?.destroy();
}

/** Synchronous last-resort teardown, for process exit and signals. */
function killAllSync(): void {
  for (const state of running) {
    for (const child of state.children) {
      if (!hasExited(child)) child.kill("SIGKILL");
    }
    killReaper(state);
    if (!state.keep) rmSync(state.dir, { recursive: true, force: true });
  }
  running.clear();
}

function installProcessHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on("exit", killAllSync);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const handler = (): void => {
      killAllSync();
      // If nobody else listens, behave like the default action: exit because of the signal.
      if (process.listenerCount(signal) <= 1) {
        process.removeListener(signal, handler);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, handler);
  }
}
