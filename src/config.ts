// The service's configuration: read from the environment once, in main, validated and frozen.

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  readonly bodyLimitBytes: number;
  /** HMAC key for initial credentials; undefined means none was configured (main then makes one up). */
  readonly credentialsKey: Uint8Array | undefined;
  readonly finalBackupTimeoutSeconds: number;
  /** After SIGTERM: how long /readyz answers 503 before the listener closes (endpoints catch up). */
  readonly shutdownDelaySeconds: number;
  /** After SIGTERM: the process exits by then, whatever is still in flight. */
  readonly shutdownTimeoutSeconds: number;
  /** HTTPS for the admission and conversion webhooks, when a key pair is configured. */
  readonly tls: TlsConfig | undefined;
}

export interface TlsConfig {
  readonly certFile: string;
  readonly keyFile: string;
  readonly port: number;
  /** How often the files are checked for a rotated pair. */
  readonly reloadSeconds: number;
}

export class ConfigError extends Error {}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
const MIN_KEY_BYTES = 32;

type Env = Readonly<Record<string, string | undefined>>;

function integer(env: Env, name: string, fallback: number, [min, max]: [number, number]): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name}=${JSON.stringify(raw)}: must be an integer from ${min} to ${max}`);
  }
  return value;
}

function logLevel(env: Env): Config["logLevel"] {
  const raw = env.LOG_LEVEL || "info";
  const level = LOG_LEVELS.find((l) => l === raw);
  if (!level)
    throw new ConfigError(`LOG_LEVEL=${JSON.stringify(raw)}: must be one of ${LOG_LEVELS.join(", ")}`);
  return level;
}

function credentialsKey(env: Env): Uint8Array | undefined {
  const raw = env.DBHOOKS_CREDENTIALS_KEY;
  if (raw === undefined || raw === "") return undefined;
  const key = Buffer.from(raw, "utf8");
  if (key.length < MIN_KEY_BYTES) {
    throw new ConfigError(
      `DBHOOKS_CREDENTIALS_KEY: must be at least ${MIN_KEY_BYTES} bytes (e.g. openssl rand -hex 32)`,
    );
  }
  return new Uint8Array(key);
}

function tls(env: Env): TlsConfig | undefined {
  const certFile = env.DBHOOKS_TLS_CERT_FILE || undefined;
  const keyFile = env.DBHOOKS_TLS_KEY_FILE || undefined;
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) {
    throw new ConfigError("DBHOOKS_TLS_CERT_FILE and DBHOOKS_TLS_KEY_FILE: set both, or neither");
  }
  return {
    certFile,
    keyFile,
    port: integer(env, "DBHOOKS_TLS_PORT", 8443, [0, 65535]),
    reloadSeconds: integer(env, "DBHOOKS_TLS_RELOAD_SECONDS", 5, [1, 3600]),
  };
}

export function loadConfig(env: Env): Config {
  const shutdownTimeoutSeconds = integer(env, "DBHOOKS_SHUTDOWN_TIMEOUT_SECONDS", 25, [1, 3600]);
  const config: Config = {
    port: integer(env, "PORT", 8080, [0, 65535]),
    host: env.HOST || "0.0.0.0",
    logLevel: logLevel(env),
    bodyLimitBytes: integer(env, "DBHOOKS_BODY_LIMIT_BYTES", 4 * 1024 * 1024, [1024, 256 * 1024 * 1024]),
    credentialsKey: credentialsKey(env),
    finalBackupTimeoutSeconds: integer(env, "DBHOOKS_FINAL_BACKUP_TIMEOUT_SECONDS", 600, [0, 86400]),
    shutdownDelaySeconds: integer(env, "DBHOOKS_SHUTDOWN_DELAY_SECONDS", 5, [0, 3600]),
    shutdownTimeoutSeconds,
    tls: tls(env),
  };
  if (config.shutdownDelaySeconds >= config.shutdownTimeoutSeconds) {
    throw new ConfigError(
      "DBHOOKS_SHUTDOWN_DELAY_SECONDS must be less than DBHOOKS_SHUTDOWN_TIMEOUT_SECONDS",
    );
  }
  return Object.freeze(config);
}
