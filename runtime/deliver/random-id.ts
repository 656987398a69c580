/** Random identifiers for rows the outbox creates (endpoints): `<prefix>_<24 hex>`. */
export function randomId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `${prefix}_${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
