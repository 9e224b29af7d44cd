import type { CronJob, Job, JobSpec } from "kubernetes-types/batch/v1.js";
import type { PersistentVolumeClaim, PodSpec } from "kubernetes-types/core/v1.js";
import { type DatabaseModel, metadata } from "../model.js";
import { commonLabels } from "../names.js";
import { toRequirements } from "../resources.js";
import { containerSecurityContext, podSecurityContext } from "./security.js";

const BACKUP_DIR = "/backups";

/**
 * One script for every engine: the profile's dump pipeline writes to a temporary file that is renamed only
 * when the dump succeeded (pipefail), then dumps older than the retention are pruned.
 */
function backupScript(dumpCommand: string, extension: string): string {
  return [
    "set -euo pipefail",
    'stamp="$(date -u +%Y%m%dT%H%M%SZ)"',
    `file="${BACKUP_DIR}/$DUMP_PREFIX-$stamp.${extension}"`,
    `${dumpCommand} > "$file.partial"`,
    'mv "$file.partial" "$file"',
    'echo "dump written: $file"',
    `find ${BACKUP_DIR} -maxdepth 1 -name "$DUMP_PREFIX-*.${extension}" -mmin "+$((RETENTION_DAYS * 1440))" -print -delete`,
  ].join("\n");
}

/** The dumps volume: spec.backup.claimName, or the claim dbhooks creates. */
export function backupClaimName(model: DatabaseModel): string {
  return model.database.spec.backup.claimName ?? model.names.backupClaim;
}

function backupPod(model: DatabaseModel, dumpPrefix: string): PodSpec {
  const { profile, database, names } = model;
  return {
    securityContext: podSecurityContext(),
    restartPolicy: "Never",
    enableServiceLinks: false,
    containers: [
      {
        name: "backup",
        // The server's own image: its dump client matches the server's version.
        image: model.image,
        command: ["bash", "-c", backupScript(profile.backup.dumpCommand, profile.backup.extension)],
        env: [
          { name: "DB_HOST", value: names.primaryService },
          { name: "DUMP_PREFIX", value: dumpPrefix },
          { name: "RETENTION_DAYS", value: String(database.spec.backup.retention) },
          ...profile.backup.env(names.secret),
        ],
        resources: toRequirements({
          requests: { cpu: "100m", memory: "256Mi" },
          limits: { cpu: model.resources.limits.cpu, memory: "512Mi" },
        }),
        securityContext: containerSecurityContext(),
        volumeMounts: [{ name: "backups", mountPath: BACKUP_DIR }],
      },
    ],
    volumes: [{ name: "backups", persistentVolumeClaim: { claimName: backupClaimName(model) } }],
  };
}

function backupLabels(model: DatabaseModel): Record<string, string> {
  return commonLabels(model.profile.engine, model.database.name, "backup");
}

function backupJobSpec(model: DatabaseModel, dumpPrefix: string, activeDeadlineSeconds: number): JobSpec {
  return {
    backoffLimit: 2,
    activeDeadlineSeconds,
    template: { metadata: { labels: backupLabels(model) }, spec: backupPod(model, dumpPrefix) },
  };
}

export function backupCronJob(model: DatabaseModel): CronJob {
  const { database, names } = model;
  return {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: metadata(model, names.backupCronJob),
    spec: {
      schedule: database.spec.backup.schedule,
      timeZone: "Etc/UTC",
      concurrencyPolicy: "Forbid",
      // A missed run (controller down) still runs within the hour, not days later.
      startingDeadlineSeconds: 3600,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 3,
      jobTemplate: {
        metadata: { labels: backupLabels(model) },
        spec: backupJobSpec(model, database.name, 6 * 3600),
      },
    },
  };
}

/** Created only when dbhooks owns the dumps volume (no spec.backup.claimName). */
export function backupClaim(model: DatabaseModel): PersistentVolumeClaim {
  const { storage } = model.database.spec;
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: metadata(model, model.names.backupClaim),
    spec: {
      accessModes: ["ReadWriteOnce"],
      ...(storage.storageClass ? { storageClassName: storage.storageClass } : {}),
      resources: { requests: { storage: storage.size } },
    },
  };
}

/** The last dump before a Database goes away; bounded by the finalize timeout. */
export function finalBackupJob(model: DatabaseModel, timeoutSeconds: number): Job {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: metadata(model, model.names.finalBackupJob),
    spec: { ...backupJobSpec(model, `${model.database.name}-final`, timeoutSeconds), backoffLimit: 1 },
  };
}
