// A promise's rejection as a value, for tests that look into the error a call fails with.

/** What `p` rejects with; undefined when it resolves. */
export const caught = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );
