import assert from 'node:assert/strict';
import { test } from 'node:test';

import { LABEL_PX, PRESENTER_LABEL_PX, chooseLayout, rowChanges, scrollTarget } from '../../flow/views/viewer_assets/layout.mjs';
import { listWindow } from '../../flow/views/viewer_assets/hop_card.mjs';
import { overviewSlices } from '../../flow/views/viewer_assets/overview.mjs';

// A drawing 1000 units wide whose labels are 20 units: 13 px labels need it 650 px wide, 16 px ones 800 px.
const drawing = { natural: 1000, units: 20, chrome: 17 };

test('a wide box puts the JSON card beside a diagram drawn with labels of at least 13 px', () => {
  const { layout, column } = chooseLayout({ ...drawing, width: 1200, presenter: false });
  assert.equal(layout, 'wide');
  const need = Math.ceil((1000 * LABEL_PX) / 20) + 5 + 17;
  assert.ok(column >= need && 1200 - 12 - column >= 300, String(column));
});

test('a box too narrow for a card beside the diagram stacks them; too narrow for the labels, it is a phone\'s', () => {
  assert.equal(chooseLayout({ ...drawing, width: 900, presenter: false }).layout, 'stack');
  assert.equal(chooseLayout({ ...drawing, width: 600, presenter: false }).layout, 'phone');
  assert.equal(chooseLayout({ ...drawing, width: 700, presenter: true }).layout, 'phone'); // 16 px in presenter mode
  assert.ok((700 - 4) * 20 / 1000 < PRESENTER_LABEL_PX);
  assert.equal(chooseLayout({ natural: 0, units: 20, chrome: null, width: 600, presenter: false }).layout, 'phone');
  assert.deepEqual(chooseLayout({ natural: 0, units: 20, chrome: null, width: 900, presenter: false }), { layout: 'wide', column: 0 });
});

test('a step changes only the arrows between the old and the new position', () => {
  assert.deepEqual(rowChanges(-1, 2), [[0, 'earlier'], [1, 'earlier']]);
  assert.deepEqual(rowChanges(2, 5), [[2, 'earlier'], [3, 'earlier'], [4, 'earlier']]);
  assert.deepEqual(rowChanges(5, 3), [[4, 'later'], [5, 'later']]);
  assert.deepEqual(rowChanges(3, 3), []);
});

test('the diagram scrolls only when the current arrow is out of view, keeping the one before above it', () => {
  const view = { scale: 1, scrollX: 0, scrollY: 0, viewW: 800, viewH: 400, offsetX: 0, naturalW: 800, naturalH: 2000 };
  const row = (top) => ({ top, bottom: top + 30, left: 100, right: 300 });
  assert.deepEqual(scrollTarget({ ...view, row: row(100), prev: row(60) }), { x: 0, y: 0 }); // in view
  assert.deepEqual(scrollTarget({ ...view, row: row(900), prev: row(860) }), { x: 0, y: 860 - 12 });
  assert.deepEqual(scrollTarget({ ...view, row: row(1990), prev: undefined }), { x: 0, y: 2000 - 400 }); // no further than the end
  assert.deepEqual(scrollTarget({ ...view, scrollY: 500, row: row(100), prev: row(60) }), { x: 0, y: 48 });
  assert.deepEqual(scrollTarget({ ...view, naturalW: 1600, row: { top: 100, bottom: 130, left: 1200, right: 1400 } }), { x: 1400 - 800 + 12, y: 0 });
  // Scrolled, the lifelines' names kept at the top cover 40 px: the arrow before goes below them.
  assert.deepEqual(scrollTarget({ ...view, covered: 40, row: row(900), prev: row(860) }), { x: 0, y: 860 - 12 - 40 });
  assert.deepEqual(scrollTarget({ ...view, covered: 40, scrollY: 500, row: row(530), prev: row(510) }), { x: 0, y: 510 - 52 });
});

test('the hop list shows two hops before the current one and three after, within the trace', () => {
  assert.deepEqual(listWindow(0, 10), { from: 0, to: 3 });
  assert.deepEqual(listWindow(5, 10), { from: 3, to: 8 });
  assert.deepEqual(listWindow(9, 10), { from: 7, to: 9 });
});

test('a long trace\'s overview: slices of the hops in turn, each in the phase most of its hops are in', () => {
  const hops = [...Array(120).keys()].map((i) => ({ phase: i < 50 ? 'request' : i < 52 ? null : 'answer' }));
  const slices = overviewSlices(hops, 60);
  assert.equal(slices.length, 60);
  assert.deepEqual(slices[0], { from: 0, to: 1, phase: 'request' });
  assert.deepEqual(slices[25], { from: 50, to: 51, phase: 'request' }); // a hop with no phase is in the one before
  assert.deepEqual(slices[59], { from: 118, to: 119, phase: 'answer' });
  assert.deepEqual(overviewSlices(hops.slice(0, 3), 60).map((s) => [s.from, s.to]), [[0, 0], [1, 1], [2, 2]]);
});
