// A throwaway CA and a serving certificate for 127.0.0.1, made with openssl, for webhooks the API server
// must call over TLS.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface ServingCert {
  readonly caPem: string;
  readonly certFile: string;
  readonly keyFile: string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
}

export function makeCa(dir: string): void {
  openssl(dir, [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-days",
    "2",
    "-subj",
    "/CN=dbhooks-e2e-ca",
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
  ]);
}

/** A certificate for 127.0.0.1 signed by the CA in `dir`, written as `<name>.crt` / `<name>.key`. */
export function makeServingCert(dir: string, name: string): ServingCert {
  const ext = join(dir, `${name}.ext`);
  execFileSync("sh", [
    "-c",
    `printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\nextendedKeyUsage=serverAuth\\n' > '${ext}'`,
  ]);
  openssl(dir, [
    "req",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-subj",
    "/CN=127.0.0.1",
    "-keyout",
    `${name}.key`,
    "-out",
    `${name}.csr`,
  ]);
  openssl(dir, [
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "2",
    "-extfile",
    ext,
    "-out",
    `${name}.crt`,
  ]);
  return {
    caPem: readFileSync(join(dir, "ca.crt"), "utf8"),
    certFile: join(dir, `${name}.crt`),
    keyFile: join(dir, `${name}.key`),
  };
}
