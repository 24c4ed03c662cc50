/**
 * Runs work items of one key one after another within this process, so a read and the
 * write that depends on it are not interleaved with another's. Keys run independently.
 */
export function keyedSerializer(): <T>(key: string, work: () => Promise<T>) => Promise<T> {
  const chains = new Map<string, Promise<unknown>>();
  return (key, work) => {
    const result = (chains.get(key) ?? Promise.resolve()).then(work);
    const tail = result.catch(() => {});
    chains.set(key, tail);
    void tail.then(() => {
      if (chains.get(key) === tail) chains.delete(key);
    });
    return result;
  };
}
