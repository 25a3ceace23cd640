import assert from 'node:assert/strict';
import { test } from 'node:test';

import { HostLink, addressOf, addressed } from '../../flow/views/viewer_assets/host.mjs';

test('a file\'s address names the hop to open (1-based) and presenter mode; anything else opens the first hop', () => {
  assert.deepEqual(addressed('#hop=5&presenter'), { start: 4, options: { presenter: true } });
  assert.deepEqual(addressed('#hop=12'), { start: 11, options: null });
  for (const hash of ['', '#', '#hop=0', '#hop=-3', '#hop=x']) assert.deepEqual(addressed(hash), { start: 0, options: null }, hash);
  assert.equal(addressOf(4, true), '#hop=5&presenter');
  assert.deepEqual(addressed(addressOf(9, false)), { start: 9, options: null });
});

test('the host hears the position once the presses pause, and only news', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const heard = [];
  const link = new HostLink(() => ({ report: (value) => heard.push(value) }), () => null);
  link.report('abc', 1, false);
  link.report('abc', 2, false);
  t.mock.timers.tick(299);
  assert.deepEqual(heard, []);
  t.mock.timers.tick(1);
  assert.deepEqual(heard, [{ trace: 'abc', hop: 3 }]);
  link.report('abc', 2, false); // the same again: no news
  t.mock.timers.tick(300);
  link.report('abc', 3, true); // while playing: at once
  t.mock.timers.tick(0);
  assert.deepEqual(heard, [{ trace: 'abc', hop: 3 }, { trace: 'abc', hop: 4 }]);
});

test('a self-contained file keeps the position and the mode in its own address instead; a follower does not', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const replaced = [];
  globalThis.location = { hash: '' };
  globalThis.history = { state: null, replaceState: (state, title, hash) => { replaced.push(hash); globalThis.location.hash = hash; } };
  t.after(() => { delete globalThis.location; delete globalThis.history; });
  let host = { standalone: true };
  const link = new HostLink(() => host, () => ({ index: 6, presenter: true }));
  link.report('abc', 6, false);
  t.mock.timers.tick(300);
  assert.deepEqual(replaced, ['#hop=7&presenter']);
  link.remember(); // already there
  host = { standalone: true, follower: true };
  link.remember();
  assert.deepEqual(replaced, ['#hop=7&presenter']);
});
