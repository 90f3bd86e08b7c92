import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dependencyOrder } from './dependency-order.ts';

test('each id comes after what it depends on; ties keep the given order; unknown names and cycles do not stop it', () => {
  const deps: Record<string, string[]> = { app: ['db', 'log'], db: ['log', 'elsewhere'], log: [], x: ['y'], y: ['x'] };
  assert.deepEqual(dependencyOrder(['app', 'db', 'log'], (id) => deps[id]!), ['log', 'db', 'app']);
  assert.deepEqual(dependencyOrder(['b', 'a'], () => []), ['b', 'a'], 'independent ids keep their order');
  assert.deepEqual(dependencyOrder(['app', 'log'], (id) => deps[id]!), ['log', 'app'], 'a dependency not among the ids is ignored');
  assert.deepEqual(dependencyOrder(['x', 'y'], (id) => deps[id]!), ['y', 'x'], 'a cycle is broken where it is found');
});
