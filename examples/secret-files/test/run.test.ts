import { expect, it } from 'vitest';
import { main } from '../run.js';

it('the secret-files example verifies its own decisions', async () => {
  const lines = await main();
  expect(lines).toHaveLength(5);
  expect(lines[2]).toMatch(/^deny .*notes\.txt.*\.env holds secrets/);
});
