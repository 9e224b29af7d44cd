/** Percent-encoding for the user-info and path parts of a connection URI (also escapes !'()*). */
export function encodeURIComponentStrict(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
