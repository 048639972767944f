import assert from 'node:assert/strict';
import { RestartBudget } from '../../src/core/restartBudget';

describe('RestartBudget', () => {
  it('allows `max` restarts within the window, then refuses until the oldest leaves it', () => {
    let now = 0;
    const budget = new RestartBudget(3, 60_000, () => now);
    assert.deepEqual([budget.take(), budget.take(), budget.take(), budget.take()], [true, true, true, false]);
    now = 59_999;
    assert.equal(budget.take(), false);
    now = 60_000;
    assert.equal(budget.take(), true, 'the first restart left the window');
  });

  it('reset() gives a fresh window (a restart the user asked for)', () => {
    const budget = new RestartBudget(1, 60_000, () => 0);
    assert.equal(budget.take(), true);
    assert.equal(budget.take(), false);
    budget.reset();
    assert.equal(budget.take(), true);
  });
});
