import { describe, expect, it } from 'vitest';
import type { ReceiverLogger } from './hooks.js';
import { validationLog } from './validation-log.js';

function capture() {
  const lines: { fields: Record<string, unknown>; message: string }[] = [];
  const logger: ReceiverLogger = {
    info: () => {},
    warn: (fields, message) => lines.push({ fields, message }),
    error: () => {},
  };
  return { lines, logger };
}

const issue = (path: string, message = 'Invalid input') => ({ path, message });

describe('validationLog', () => {
  it('logs the first issue of a type, suppresses the rest of the window, counts them on the next line', () => {
    const { lines, logger } = capture();
    let now = 0;
    const log = validationLog(logger, () => now, 1000);
    log({ id: 'a', type: 't' }, [issue('/x')]);
    now = 999;
    log({ id: 'b', type: 't' }, [issue('/x')]);
    log({ id: 'c', type: 't' }, [issue('/x')]);
    expect(lines).toHaveLength(1);
    now = 1000;
    log({ id: 'd', type: 't' }, [issue('/y')]);
    expect(lines).toHaveLength(2);
    expect(lines[1]?.fields).toMatchObject({ id: 'd', type: 't', suppressed: 2 });
    // A quiet window after a line: the next one has nothing suppressed.
    now = 5000;
    log({ id: 'e', type: 't' }, [issue('/y')]);
    expect(lines[2]?.fields['suppressed']).toBeUndefined();
  });

  it('shows the first three issues and the total; cuts an overlong message', () => {
    const { lines, logger } = capture();
    const log = validationLog(logger, () => 0);
    log({ id: 'a', type: 't' }, [issue('/a', 'm'.repeat(500)), issue('/b'), issue('/c'), issue('/d')]);
    const fields = lines[0]?.fields as { issueCount: number; issues: { path: string; message: string }[] };
    expect(fields.issueCount).toBe(4);
    expect(fields.issues.map((i) => i.path)).toEqual(['/a', '/b', '/c']);
    expect(fields.issues[0]?.message.length).toBeLessThanOrEqual(201);
    expect(lines[0]?.message).toContain('4 issue(s), first at "/a"');
  });

  it('tracks at most maxTypes types: the oldest is dropped (and logs again on its next issue)', () => {
    const { lines, logger } = capture();
    const log = validationLog(logger, () => 0, 60_000, 2);
    log({ id: '1', type: 'a' }, [issue('/x')]);
    log({ id: '2', type: 'b' }, [issue('/x')]);
    log({ id: '3', type: 'a' }, [issue('/x')]); // suppressed: a is tracked
    log({ id: '4', type: 'c' }, [issue('/x')]); // drops a
    log({ id: '5', type: 'b' }, [issue('/x')]); // suppressed: b is still tracked
    log({ id: '6', type: 'a' }, [issue('/x')]); // a was dropped: logged again
    expect(lines.map((l) => l.fields['type'])).toEqual(['a', 'b', 'c', 'a']);
  });

  it('a logger that throws does not throw into the caller', () => {
    const log = validationLog({
      info: () => {},
      warn: () => {
        throw new Error('broken logger');
      },
      error: () => {},
    });
    expect(() => log({ id: 'a', type: 't' }, [issue('/x')])).not.toThrow();
  });
});
