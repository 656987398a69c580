/** One JSON pointer segment (RFC 6901): `~` → `~0`, `/` → `~1`. Shared by the envelope, dispatch and validation. */
export function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
