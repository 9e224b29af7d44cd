import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

describe("loadConfig", () => {
  it("has defaults that run the service with no environment at all", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      logLevel: "info",
      bodyLimitBytes: 4 * 1024 * 1024,
      finalBackupTimeoutSeconds: 600,
    });
    expect(config.credentialsKey).toBeUndefined();
    expect(Object.isFrozen(config)).toBe(true);
  });

  it("reads every setting from the environment", () => {
    const config = loadConfig({
      PORT: "9000",
      LOG_LEVEL: "debug",
      DBHOOKS_BODY_LIMIT_BYTES: "1048576",
      DBHOOKS_CREDENTIALS_KEY: "k".repeat(32),
      DBHOOKS_FINAL_BACKUP_TIMEOUT_SECONDS: "120",
    });
    expect(config).toMatchObject({
      port: 9000,
      logLevel: "debug",
      bodyLimitBytes: 1048576,
      finalBackupTimeoutSeconds: 120,
    });
    expect(Buffer.from(config.credentialsKey ?? []).toString()).toBe("k".repeat(32));
  });

  it.each([
    [{ PORT: "http" }, "PORT"],
    [{ PORT: "70000" }, "PORT"],
    [{ LOG_LEVEL: "loud" }, "LOG_LEVEL"],
    [{ DBHOOKS_CREDENTIALS_KEY: "short" }, "DBHOOKS_CREDENTIALS_KEY"],
    [{ DBHOOKS_FINAL_BACKUP_TIMEOUT_SECONDS: "-1" }, "DBHOOKS_FINAL_BACKUP_TIMEOUT_SECONDS"],
    [
      { DBHOOKS_SHUTDOWN_DELAY_SECONDS: "30", DBHOOKS_SHUTDOWN_TIMEOUT_SECONDS: "10" },
      "DBHOOKS_SHUTDOWN_DELAY_SECONDS",
    ],
  ])("refuses %o naming %s", (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });
});
