// How many file-system requests a piece of code keeps in flight at once: each holds native
// memory (a libuv request, its path) until it completes, and glibc keeps what 100,000 of them
// took (src/util/remove-tree.ts). A count of objects, not a timing or a resident-set figure.

/** The most FSReq resources active at once while `run` runs, sampled at every event-loop turn. */
export async function mostFsRequestsInFlight(run: () => Promise<unknown>): Promise<number> {
  let most = 0;
  let done = false;
  const sample = () => {
    const n = process.getActiveResourcesInfo().filter((r) => r.startsWith('FSReq')).length;
    most = Math.max(most, n);
    if (!done) setImmediate(sample);
  };
  sample();
  try {
    await run();
  } finally {
    done = true;
  }
  return most;
}
