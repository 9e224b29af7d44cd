// Container resources: the size preset, overridden field by field by spec.resources.
import type { ResourceRequirements } from "kubernetes-types/core/v1.js";
import type { DatabaseSpec, ResourceValues, Size } from "./spec.js";

interface Preset {
  readonly requests: Required<ResourceValues>;
  readonly limits: Required<ResourceValues>;
}

// Bitnami's presets: limits 50% above requests.
const PRESETS: Record<Size, Preset> = {
  small: { requests: { cpu: "500m", memory: "512Mi" }, limits: { cpu: "750m", memory: "768Mi" } },
  medium: { requests: { cpu: "500m", memory: "1Gi" }, limits: { cpu: "750m", memory: "1536Mi" } },
  large: { requests: { cpu: "1", memory: "2Gi" }, limits: { cpu: "1500m", memory: "3Gi" } },
};

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };
const DECIMAL: Record<string, number> = { k: 1e3, M: 1e6, G: 1e9, T: 1e12 };

/** Bytes in a memory quantity as the CRD's pattern allows it ("512Mi", "1G", "1000000"). */
export function memoryBytes(quantity: string): number {
  const match = /^(\d+)([A-Za-z]*)$/.exec(quantity);
  const unit = match?.[2] ?? "";
  return Number(match?.[1] ?? 0) * (BINARY[unit] ?? DECIMAL[unit] ?? 1);
}

/** Millicores in a CPU quantity ("500m", "1", "1.5"). */
export function cpuMillis(quantity: string): number {
  return quantity.endsWith("m") ? Number(quantity.slice(0, -1)) : Math.round(Number(quantity) * 1000);
}

const MAGNITUDE = { cpu: cpuMillis, memory: memoryBytes } as const;

export interface ContainerResources {
  readonly requests: Required<ResourceValues>;
  readonly limits: Required<ResourceValues>;
}

export function containerResources(spec: DatabaseSpec): ContainerResources {
  const preset = PRESETS[spec.size];
  const requests = { ...preset.requests, ...spec.resources?.requests };
  const limits = { ...preset.limits, ...spec.resources?.limits };
  // A request above the limit is refused by the API server: an override of one side lifts the other.
  for (const resource of ["cpu", "memory"] as const) {
    const magnitude = MAGNITUDE[resource];
    if (magnitude(requests[resource]) > magnitude(limits[resource])) {
      if (spec.resources?.limits?.[resource]) requests[resource] = limits[resource];
      else limits[resource] = requests[resource];
    }
  }
  return { requests, limits };
}

export function toRequirements(resources: ContainerResources): ResourceRequirements {
  return {
    requests: { cpu: resources.requests.cpu, memory: resources.requests.memory },
    limits: { cpu: resources.limits.cpu, memory: resources.limits.memory },
  };
}
