import assert from 'node:assert/strict';
import { test } from 'node:test';

import { HOPS, makeBundle, words } from './bundle.mjs';
import { bandTarget, cellNote, litFor, messageColumn, messagePairs, pairsText, spanColumns } from '../../flow/views/viewer_assets/route_model.mjs';

const bundle = makeBundle(HOPS);
const route = bundle.route;

test('each message and band sits in the grid after the label column, spanning its messages', () => {
  assert.equal(messageColumn(0), '2');
  assert.equal(messageColumn(10), '12');
  assert.deepEqual(route.spans.app.map(([, a, b]) => spanColumns(a, b)), ['2 / 3', '3 / 6', '6 / 7', '7 / 10', '10 / 11', '11 / 13']);
});

test('a hop lights its message and that message\'s two phases; a wire frame lights nothing', () => {
  assert.deepEqual(litFor(route, bundle.hops[1]), { n: 2, message: route.messages[2], article: 1, app: 'request' });
  assert.deepEqual(litFor(route, bundle.hops[3]), { n: null, message: null, article: null, app: null });
  assert.equal(litFor(route, undefined).n, null);
});

test('who talks to whom in a message: each arrow once, in the order they first appear', () => {
  const pairs = messagePairs(bundle.hops);
  assert.deepEqual([...pairs.keys()], [1, 2]);
  assert.deepEqual(pairs.get(2).map((p) => `${p.from.en}→${p.to.en}`), ['MCP Client→MCP Server', 'MCP Server→MCP Client']);
  assert.equal(pairsText(pairs.get(2), 'en'), 'MCP Client → MCP Server, MCP Server → MCP Client');
  assert.equal(pairsText(pairs.get(2), 'zh'), 'MCP Client → MCP Server，MCP Server → MCP Client');
  const three = [1, 2, 3].map((k) => ({ from: words(`a${k}`), to: words(`b${k}`) }));
  assert.equal(pairsText(three, 'en'), 'a1 → b1，a2 → b2 …');
  assert.equal(pairsText([{ from: words('App'), to: words('App') }], 'en'), 'App');
  assert.equal(pairsText(undefined, 'en'), '');
});

test('a band jumps to the first hop of its first message this trace has; a band with none has no target', () => {
  assert.equal(bandTarget(route, 1, 3), 0);
  assert.equal(bandTarget(route, 5, 7), undefined);
});

test('a message\'s note says why it is missing, or how many separate visits the trace makes', () => {
  const ui = bundle.ui;
  assert.equal(cellNote(route.messages[5], ui, 'en'), 'not recorded');
  assert.equal(cellNote({ ...route.messages[2], visits: 2 }, ui, 'en'), '2 visits');
  assert.equal(cellNote(route.messages[2], ui, 'zh'), '');
});
