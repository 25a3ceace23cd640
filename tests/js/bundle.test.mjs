import assert from 'node:assert/strict';
import { test } from 'node:test';

import { HOPS, bundleErrors, makeBundle } from './bundle.mjs';

test('the tests\' bundle satisfies the schema Python\'s bundles are checked against', () => {
  assert.deepEqual(bundleErrors(makeBundle(HOPS)), []);
});

test('the schema closes every object: a field Python does not declare is refused', () => {
  const bundle = makeBundle(HOPS);
  bundle.hops[0].colour = 'red';
  assert.match(bundleErrors(bundle).join('\n'), /\/hops\/0 must NOT have additional properties/);
});

test('the schema refuses a bundle without a table the viewer reads', () => {
  for (const key of ['rows', 'row_styles', 'route', 'choice_keys', 'phases']) {
    const bundle = makeBundle(HOPS);
    delete bundle[key];
    assert.match(bundleErrors(bundle).join('\n'), new RegExp(`required property '${key}'`), key);
  }
  const bundle = makeBundle(HOPS);
  bundle.route.spans.app[0] = ['prepare', 0];
  assert.notDeepEqual(bundleErrors(bundle), []);
});

test('a hop\'s focus is a path, a coloured path, or a path to open: nothing else', () => {
  const bundle = makeBundle(HOPS);
  bundle.hops[0].focus = [['payload', 'n'], { path: ['payload'], color: '#ff0000' }, { path: [], open: true }];
  assert.deepEqual(bundleErrors(bundle), []);
  bundle.hops[0].focus = [{ path: ['payload'], open: false }];
  assert.notDeepEqual(bundleErrors(bundle), []);
});
