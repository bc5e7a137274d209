import { runUsability } from '../usability/runUsability.js';

// The usability corpus (issue 12): the allow / deny / uncertain mix and every mismatch. `pnpm usability` runs it
// alone against src/; here it runs with the other benchmarks against the build.
export default async function usabilityBench(): Promise<void> {
  await runUsability();
}
