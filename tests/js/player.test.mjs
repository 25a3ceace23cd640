import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Player } from '../../flow/views/viewer_assets/controls.mjs';

function fakeClock() {
  // A clock the test moves: each timer fires when `run` reaches its time; `lag` ms pass while a tick runs.
  const clock = { t: 0, timers: [], lag: 0 };
  clock.now = () => clock.t;
  clock.later = (fn, ms) => { const timer = { at: clock.t + ms, fn }; clock.timers.push(timer); return timer; };
  clock.cancel = (timer) => { clock.timers = clock.timers.filter((x) => x !== timer); };
  clock.run = (until) => {
    for (;;) {
      clock.timers.sort((a, b) => a.at - b.at);
      const next = clock.timers[0];
      if (!next || next.at > until) break;
      clock.timers.shift();
      clock.t = next.at;
      next.fn();
      clock.t += clock.lag;
    }
    clock.t = until;
  };
  return clock;
}

test('autoplay moves one hop a period, timed from the start so slow steps do not make it drift', () => {
  const clock = fakeClock();
  clock.lag = 30; // each step takes 30 ms
  const at = [];
  const heard = [];
  const player = new Player({ tick: () => { at.push(clock.now()); return true; }, changed: (on) => heard.push(on), clock });
  player.play(1000);
  assert.ok(player.playing);
  clock.run(5000);
  assert.deepEqual(at, [1000, 2000, 3000, 4000, 5000]);
  player.stop();
  assert.ok(!player.playing);
  assert.deepEqual(heard, [true, false]);
  clock.run(9000);
  assert.equal(at.length, 5);
});

test('autoplay stops by itself when a step says so (the last hop, a question waiting)', () => {
  const clock = fakeClock();
  let left = 3;
  const heard = [];
  const player = new Player({ tick: () => (left -= 1) > 0, changed: (on) => heard.push(on), clock });
  player.play(500);
  clock.run(10_000);
  assert.equal(left, 0);
  assert.ok(!player.playing);
  assert.deepEqual(heard, [true, false]);
  assert.deepEqual(clock.timers, []);
});

test('playing again restarts the pace; while a step runs the player is still playing', () => {
  const clock = fakeClock();
  const seen = [];
  const player = new Player({ tick: () => { seen.push([clock.now(), player.playing]); return true; }, changed: () => {}, clock });
  player.play(1000);
  clock.run(500);
  player.play(200); // a new speed chosen
  clock.run(1000);
  assert.deepEqual(seen, [[700, true], [900, true]]);
  assert.equal(clock.timers.length, 1); // one timer: the old pace was cancelled
});
