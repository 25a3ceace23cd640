import assert from 'node:assert/strict';
import { test } from 'node:test';

import { focusPlan, parsePath, resolvePath, typeOf } from '../../flow/views/viewer_assets/json_paths.mjs';

test('a path is a list of keys, or a dotted string with [n] for an index', () => {
  assert.deepEqual(parsePath(['a', 0]), ['a', 0]);
  assert.deepEqual(parsePath('payload.messages[1].content'), ['payload', 'messages', 1, 'content']);
  assert.deepEqual(parsePath('rows[0][2]'), ['rows', 0, 2]);
  assert.equal(parsePath('a[x]'), null);
  assert.equal(parsePath(7), null);
});

test('a path resolves against the view, else against its payload, else against the payload\'s body', () => {
  const view = { kind: 'k', payload: { method: 'tools/call', body: { tools: [{ name: 'get_weather' }] } } };
  assert.deepEqual(resolvePath(view, ['kind']), ['kind']);
  assert.deepEqual(resolvePath(view, ['method']), ['payload', 'method']);
  assert.deepEqual(resolvePath(view, ['tools', 0, 'name']), ['payload', 'body', 'tools', 0, 'name']);
  assert.equal(resolvePath(view, ['tools', 1]), null);
  assert.equal(resolvePath(view, ['kind', 'x']), null); // a string has no keys
  assert.equal(resolvePath({ a: null }, ['a', 'b']), null);
});

test('the JSON card marks each focused field, opens the way to it, and opens three levels with no focus', () => {
  const view = { payload: { params: { name: 'get_weather', arguments: { city: '北京' } }, id: 3 } };
  const plan = focusPlan(view, ['params.name', { path: ['id'], color: '#123456' }, { path: ['params', 'arguments'], open: true }, 'no.such']);
  assert.deepEqual([...plan.marks], [['["payload","params","name"]', ''], ['["payload","id"]', '#123456']]);
  for (const open of ['[]', '["payload"]', '["payload","params"]', '["payload","params","name"]', '["payload","params","arguments"]']) {
    assert.ok(plan.open.has(open), open);
  }
  assert.equal(plan.depth, 1);
  assert.equal(focusPlan(view, undefined).depth, 3);
  assert.equal(focusPlan(view, [{ path: ['payload'], open: true }]).depth, 3); // opened, not marked
  assert.equal(focusPlan(view, ['nowhere']).marks.size, 0);
});

test('a value\'s type as the card names it', () => {
  assert.deepEqual([null, [], {}, 'x', 1, true].map(typeOf), ['null', 'array', 'object', 'string', 'number', 'boolean']);
});
