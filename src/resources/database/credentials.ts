// Initial credentials, derived rather than drawn: HMAC-SHA256(key, parent uid + purpose). Two syncs that
// run before the first Secret is observed hand out the same passwords, answers stay deterministic, and
// nobody can recompute them without the service's key. Once the Secret exists its values win forever.
import { createHmac } from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
// The largest multiple of 62 below 256: bytes at or above it are skipped so that every character is
// equally likely (no modulo bias).
const UNBIASED_LIMIT = 248;

/** A `length`-character alphanumeric secret for `purpose`, unique per parent uid. */
export function deriveSecret(key: Uint8Array, seed: string, purpose: string, length = 32): string {
  let out = "";
  for (let block = 0; out.length < length; block++) {
    const bytes = createHmac("sha256", key).update(`${seed}\0${purpose}\0${block}`).digest();
    for (const byte of bytes) {
      if (byte < UNBIASED_LIMIT && out.length < length) out += ALPHABET[byte % ALPHABET.length];
    }
  }
  return out;
}
