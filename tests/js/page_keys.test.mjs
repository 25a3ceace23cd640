import assert from 'node:assert/strict';
import { test } from 'node:test';

import { pageTop, presenterKey } from '../../flow/views/viewer_assets/page_keys.mjs';

test('a page without a viewer takes the viewer\'s presenter keys: P turns it on or off, Esc leaves it', () => {
  assert.equal(presenterKey('p', false), true);
  assert.equal(presenterKey('P', true), false);
  assert.equal(presenterKey('Escape', true), false);
  assert.equal(presenterKey('Escape', false), null);
  for (const key of ['PageDown', 'ArrowRight', 'a', 'Enter', 'f']) assert.equal(presenterKey(key, true), null, key);
});

test('in presenter mode a clicker pages through what is below the screen, and stops at its ends', () => {
  const at = (top) => ({ top, height: 2000, client: 700 });
  assert.equal(pageTop('PageDown', at(0)), 595);
  assert.equal(pageTop(' ', at(1200)), 1300);
  assert.equal(pageTop('PageUp', at(300)), 0);
  assert.equal(pageTop('End', at(0)), 1300);
  assert.equal(pageTop('Home', at(900)), 0);
  assert.equal(pageTop('p', at(0)), null);
  assert.equal(pageTop('x', at(0)), null);
});
