import { commonLabels, type Labels } from "../names.js";
import type { WebService } from "../spec.js";

export function metadata(
  webService: WebService,
  name: string,
): { name: string; namespace: string; labels: Labels } {
  return { name, namespace: webService.namespace, labels: commonLabels(webService.name) };
}
