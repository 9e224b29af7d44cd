import type { Ingress } from "kubernetes-types/networking/v1.js";
import { childNames, PORT_NAME, tlsSecretName } from "../names.js";
import type { WebService } from "../spec.js";
import { metadata } from "./metadata.js";

function sortedCopy(map: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.keys(map)
      .sort()
      .map((key) => [key, map[key] as string]),
  );
}

/**
 * Everything under / of the host to the Service. With TLS, the certificate is read from a Secret named
 * after the host: one per host, which is what cert-manager's ingress-shim creates when asked to by an
 * annotation (cert-manager.io/cluster-issuer) in spec.ingress.annotations.
 */
export function ingress(webService: WebService, host: string): Ingress {
  const { ingress: spec } = webService.spec;
  const names = childNames(webService.name);
  const annotations = spec.annotations ?? {};
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: {
      ...metadata(webService, names.ingress),
      ...(Object.keys(annotations).length > 0 ? { annotations: sortedCopy(annotations) } : {}),
    },
    spec: {
      ...(spec.className ? { ingressClassName: spec.className } : {}),
      ...(spec.tls ? { tls: [{ hosts: [host], secretName: tlsSecretName(host) }] } : {}),
      rules: [
        {
          host,
          http: {
            paths: [
              {
                path: "/",
                pathType: "Prefix",
                backend: { service: { name: names.service, port: { name: PORT_NAME } } },
              },
            ],
          },
        },
      ],
    },
  };
}
