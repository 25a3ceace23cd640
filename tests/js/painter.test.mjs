import assert from 'node:assert/strict';
import { test } from 'node:test';

import { HOPS, makeBundle } from './bundle.mjs';
import { Painter, noteHeld } from '../../flow/views/viewer_assets/painter.mjs';

function painter(t) {
  // A painter over parts that write down what they are asked to show, on frames the test runs.
  t.mock.timers.enable({ apis: ['setTimeout'] }); // the mark after each frame
  const frames = [];
  globalThis.requestAnimationFrame = (fn) => frames.push(fn);
  globalThis.cancelAnimationFrame = () => frames.splice(0);
  t.after(() => { delete globalThis.requestAnimationFrame; delete globalThis.cancelAnimationFrame; });
  const log = [];
  const part = (name, own = {}) => new Proxy(own, {
    get: (target, method) => (method in target ? target[method] : (...args) => { log.push([name, method, args[0]]); }),
  });
  const el = { dataset: {}, classList: { toggle: () => {} } };
  const parts = {
    el, diagram: part('diagram'), lanes: part('lanes'), header: part('header'), routeStrip: part('route', { paint: (hop) => hop.message }),
    card: part('card', { tree: { reveal: () => {} } }),
    controls: part('controls'), overview: part('overview'), closingView: part('closing'),
    quiz: { asking: () => false, show: () => {} },
  };
  const state = { bundle: makeBundle(HOPS), lang: 'en', index: 0, closing: false, playing: false };
  const told = [];
  const p = new Painter(parts, () => state, (i) => told.push(i));
  const runFrame = () => { frames.splice(0).forEach((fn) => fn()); t.mock.timers.tick(0); };
  return { p, el, state, log, told, runFrame, painted: () => log.filter(([name, method]) => name === 'overview' && method === 'paint').map(([, , i]) => i) };
}

test('steps taken between two frames are painted once, at the last of them', (t) => {
  const { p, el, state, runFrame, painted, told } = painter(t);
  for (const i of [1, 2, 3]) { state.index = i; p.moved(); p.schedule(); }
  assert.equal(el.dataset.current, undefined);
  runFrame();
  assert.deepEqual(painted(), [3]);
  assert.deepEqual(told, [3]);
  runFrame(); // the frame after it marks the position painted
  assert.equal(el.dataset.current, '4');
  assert.equal(el.dataset.message, ''); // hop 4 is a wire frame, outside the ten messages
  p.schedule();
  runFrame(); // nothing moved: nothing painted
  assert.deepEqual(painted(), [3]);
  p.repaint(); // a toggle changed what hop 3 shows
  assert.deepEqual(painted(), [3, 3]);
});

test('a paint cancelled before its frame does not happen; the closing view paints instead of a hop', (t) => {
  const { p, state, log, runFrame, painted } = painter(t);
  state.index = 2;
  p.schedule();
  p.cancel();
  runFrame();
  assert.deepEqual(painted(), []);
  state.bundle.closing = { en: { title: 'What this run shows', notice: null, sections: [] } };
  state.closing = true;
  p.paint(true);
  assert.deepEqual(painted(), []);
  assert.deepEqual(log.find(([name]) => name === 'closing'), ['closing', 'paint', state.bundle.closing.en]);
});

test("a sample's note waits for the closing view when the trace has questions", () => {
  const bundle = makeBundle(HOPS);
  assert.ok(!noteHeld(bundle)); // no closing view
  bundle.closing = { en: {}, zh: {} };
  assert.ok(noteHeld(bundle));
  for (const hop of bundle.hops) delete hop.question;
  assert.ok(!noteHeld(bundle));
});
