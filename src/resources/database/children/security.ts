import type { PodSecurityContext, SecurityContext } from "kubernetes-types/core/v1.js";

/** The official images run their servers as uid/gid 999 (Debian builds); fsGroup makes volumes theirs. */
export const DATABASE_UID = 999;

export function podSecurityContext(): PodSecurityContext {
  return {
    runAsNonRoot: true,
    runAsUser: DATABASE_UID,
    runAsGroup: DATABASE_UID,
    fsGroup: DATABASE_UID,
    fsGroupChangePolicy: "OnRootMismatch",
    seccompProfile: { type: "RuntimeDefault" },
  };
}

export function containerSecurityContext(): SecurityContext {
  return { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } };
}
