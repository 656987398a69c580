/** Reading a dotted path (`data.object.type`) out of a decoded body: the selectors' one helper. */
import { isRecord } from '../presets/web-support.js';

export { isRecord };

/** The value at `path` (dot separated), undefined where a step is not an object. */
export function getPath(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split('.')) {
    if (!isRecord(current)) return undefined;
    current = current[part];
  }
  return current;
}
