import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Stepper } from '../../flow/views/viewer_assets/stepper.mjs';

function stepper(count, hasClosing = false, start = 0) {
  const s = new Stepper();
  s.load(count, hasClosing, start, false);
  return s;
}

test('a new trace starts at the hop asked for, clamped; the same trace again stays where it was', () => {
  assert.equal(stepper(5, false, 3).index, 3);
  assert.equal(stepper(5, false, 99).index, 4);
  assert.equal(stepper(5, false, -2).index, 0);
  const s = stepper(5, false, 2);
  s.goto(4);
  s.load(5, false, 0, true);
  assert.equal(s.index, 4);
});

test('N presses of Next move N hops, and stop at the last', () => {
  const s = stepper(6);
  for (let k = 0; k < 4; k++) {
    assert.equal(s.action(1, false), 'goto');
    s.goto(s.index + 1);
  }
  assert.equal(s.index, 4);
  s.goto(s.index + 1);
  s.goto(s.index + 1);
  assert.equal(s.index, 5);
  assert.equal(s.action(-1, false), 'goto');
});

test('forward from a waiting question reveals it first; a screen that may not reveal steps on', () => {
  const s = stepper(3);
  assert.equal(s.action(1, true), 'reveal');
  assert.equal(s.action(-1, true), 'goto');
  assert.equal(s.action(1, false), 'goto');
});

test('the closing view is the one step after the last hop, and Previous goes back from it', () => {
  const s = stepper(3, true, 2);
  assert.equal(s.action(1, false), 'open');
  assert.ok(s.open());
  assert.ok(!s.open()); // shown already
  assert.equal(s.action(1, false), 'none');
  assert.equal(s.action(-1, false), 'leave');
  assert.ok(s.leave());
  assert.ok(!s.leave());
  assert.equal(s.index, 2);
  assert.equal(stepper(3, false, 2).action(1, false), 'goto'); // no closing view: Next stays at the last hop
});

test('going to a hop leaves the closing view; a trace with no hops goes nowhere', () => {
  const s = stepper(3, true, 2);
  s.open();
  assert.ok(s.goto(0));
  assert.equal(s.closing, false);
  assert.equal(s.index, 0);
  const empty = stepper(0);
  assert.equal(empty.goto(1), false);
  assert.equal(empty.action(1, false), 'none');
});
