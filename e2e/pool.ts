/**
 * Runs async jobs with at most `limit` at a time (opencode runs are CPU-heavy; this machine
 * class has two cores).
 * @returns the results in the order of `items`.
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** How many opencode runs go at once: E2E_CONCURRENCY, else 2. */
export function e2eConcurrency(): number {
  const n = Number(process.env.E2E_CONCURRENCY);
  return Number.isInteger(n) && n > 0 ? n : 2;
}
