/** At most `slots` of the jobs given to the returned runner are in flight at once, started in order. */
export function limit(slots: number): <T>(job: () => Promise<T>) => Promise<T> {
  let free = slots;
  const waiting: (() => void)[] = [];
  return async (job) => {
    // A finished job hands its slot to the next waiting one directly, so none can be overtaken.
    if (free > 0) free--;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await job();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}
