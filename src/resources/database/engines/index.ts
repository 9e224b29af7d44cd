import type { Engine } from "../spec.js";
import { mongodb } from "./mongodb.js";
import { mysql } from "./mysql.js";
import { postgresql } from "./postgresql.js";
import type { EngineProfile } from "./profile.js";

const PROFILES: Record<Engine, EngineProfile> = { postgresql, mysql, mongodb };

export function profileFor(engine: Engine): EngineProfile {
  return PROFILES[engine];
}

/** The engine whose official image this is ("postgres:16" -> postgresql), if any. */
export function engineOfImage(image: string): { engine: Engine; version: string } | undefined {
  const colon = image.lastIndexOf(":");
  if (colon < 0) return undefined;
  const repository = image.slice(0, colon);
  const profile = Object.values(PROFILES).find((p) => p.image === repository);
  return profile ? { engine: profile.engine, version: image.slice(colon + 1) } : undefined;
}

export type { EngineProfile } from "./profile.js";
