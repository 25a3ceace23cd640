import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  Answers, POST_GAP_MS, POST_RETRY_MS, Poster, RECONNECT_MS, RoomState, Stream, tabStore,
} from '../../flow/views/viewer_assets/room_state.mjs';

const view = (index, more = {}) => ({ index, lang: 'en', quiz: false, captions: false, closing: false, round: 1, ...more });

test('a follower follows the teacher\'s view, and fetches a bundle first for another trace or language', () => {
  const room = new RoomState({ role: 'follower', round: 1 });
  assert.equal(room.heard(view(3), { index: 0, lang: 'en' }, true), 'apply');
  assert.deepEqual(room.heard(view(3, { lang: 'zh' }), { index: 3, lang: 'en' }, true), { fetch: { round: 1, lang: 'zh', wanted: '1:zh' } });
  assert.equal(room.heard(view(4), { index: 3, lang: 'en' }, true), 'none'); // the bundle on its way applies it
  assert.equal(room.loaded('1:zh', 1), 'lang');
  assert.equal(room.heard(view(5), { index: 4, lang: 'en' }, true), 'apply');
  assert.equal(room.teacher.index, 5);
});

test('a new round is another trace: its tallies start again, and a bundle asked for before a later view is dropped', () => {
  const room = new RoomState({ role: 'follower', round: 1 });
  room.counts.set(2, [1, 0]);
  room.following = false;
  assert.deepEqual(room.heard(view(0, { round: 2 }), { index: 4, lang: 'en' }, true).fetch.wanted, '2:en');
  assert.deepEqual(room.heard(view(0, { round: 3 }), { index: 4, lang: 'en' }, true).fetch.wanted, '3:en');
  assert.equal(room.loaded('2:en', 2), 'stale');
  assert.equal(room.loaded('3:en', 3), 'round');
  assert.equal(room.round, 3);
  assert.equal(room.counts.size, 0);
  assert.ok(room.following); // the student follows the new trace's first view
  room.heard(view(0, { round: 4 }), { index: 0, lang: 'en' }, true);
  room.failed('4:en');
  assert.equal(room.loading, null); // the next view asks again
  room.gone();
  room.loading = '5:en';
  assert.equal(room.loaded('5:en', 5), 'stale'); // the room closed meanwhile
});

test('the teacher\'s own view tells it only of a new round', () => {
  const room = new RoomState({ role: 'teacher' });
  room.counts.set(1, [2, 1]);
  assert.equal(room.heard(view(1), { index: 1, lang: 'en' }, false), 'none');
  assert.equal(room.counts.size, 1);
  room.heard(view(0, { round: 2 }), { index: 0, lang: 'en' }, false);
  assert.equal(room.round, 2);
  assert.equal(room.counts.size, 0);
  assert.equal(room.moved({ index: 5, closing: false }), false);
  assert.equal(room.banner(), null);
});

test('a student who looks on their own leaves the teacher, and is together again at the teacher\'s hop', () => {
  const room = new RoomState({ role: 'follower' });
  assert.equal(room.banner(), null); // nothing heard yet
  room.heard(view(4), { index: 4, lang: 'en' }, true);
  assert.equal(room.banner(), 'following');
  assert.ok(room.moved({ index: 2, closing: false }));
  assert.equal(room.banner(), 'own');
  assert.ok(!room.moved({ index: 1, closing: false })); // still on their own: nothing new
  room.heard(view(1), { index: 1, lang: 'en' }, true); // the teacher comes to the student's hop
  assert.equal(room.banner(), 'following');
  assert.ok(room.moved({ index: 1, closing: true })); // the closing view is another step
  room.teacherHere = false;
  assert.equal(room.banner(), 'away');
  room.gone();
  assert.equal(room.banner(), 'closed');
});

test('a follower may look back, and ahead only up to the first question still waiting for the teacher', () => {
  const room = new RoomState({ role: 'follower' });
  assert.equal(room.furthest([3, 7]), null); // nothing heard yet: no teacher to be ahead of
  room.heard(view(1, { quiz: true }), { index: 1, lang: 'en' }, true);
  assert.equal(room.furthest([3, 7]), 3); // up to the question at hop 3 (to read it), not past it
  assert.equal(room.furthest([]), null); // questions off, or every one revealed: anywhere, the closing view too
  room.heard(view(3, { quiz: true }), { index: 3, lang: 'en' }, true);
  assert.equal(room.furthest([3, 7]), 3); // the teacher's hop asks: back, not ahead
  room.heard(view(4, { quiz: true }), { index: 3, lang: 'en' }, true);
  assert.equal(room.furthest([7]), 7); // revealed and passed: up to the next one
  assert.equal(room.furthest([1, 7]), 7); // a question the teacher jumped over is behind: looking back
  room.gone();
  assert.equal(room.furthest([7]), null); // a closed room binds nobody
  assert.equal(new RoomState({ role: 'teacher' }).furthest([0]), null);
});

test('a follower looking past a question the teacher has not revealed follows the teacher again', () => {
  const room = new RoomState({ role: 'follower' });
  room.heard(view(2), { index: 2, lang: 'en' }, true);
  room.moved({ index: 9, closing: false }); // ahead on their own, questions off
  assert.equal(room.banner(), 'own');
  assert.ok(!room.rein({ index: 9, closing: false }, []));
  room.heard(view(2, { quiz: true }), { index: 9, lang: 'en' }, true); // the teacher turns the questions on
  assert.ok(room.rein({ index: 9, closing: false }, [5]));
  assert.equal(room.banner(), 'following');
  room.moved({ index: 0, closing: false }); // back on their own: allowed
  assert.ok(!room.rein({ index: 0, closing: false }, [5]));
  room.moved({ index: 5, closing: false });
  assert.ok(!room.rein({ index: 5, closing: false }, [5])); // at the question: reading it, not past it
  room.moved({ index: 19, closing: true });
  assert.ok(room.rein({ index: 19, closing: true }, [5])); // the closing view is past every hop
});

function poster({ statuses = [], closed = () => false } = {}) {
  // A Poster whose posts answer with `statuses` in turn (a number, or 'fail' for a network error), on timers the
  // test fires by hand.
  const sent = [];
  const timers = [];
  const gone = [];
  let current = view(0);
  const p = new Poster({
    view: () => current,
    send: (body) => {
      sent.push(JSON.parse(body).index);
      const status = statuses.shift() ?? 200;
      return status === 'fail' ? Promise.reject(new Error('offline')) : Promise.resolve({ ok: status < 300, status });
    },
    later: (fn, ms) => timers.push({ fn, ms }),
    closed,
    gone: () => gone.push(true),
  });
  return { p, sent, timers, gone, set: (v) => { current = v; } };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('the teacher posts one view at a time: a view that changes meanwhile goes when the post returns, the latest only', async () => {
  const { p, sent, timers, set } = poster();
  p.post();
  set(view(1));
  p.post();
  set(view(2));
  p.post();
  assert.deepEqual(sent, [0]);
  await settle();
  assert.deepEqual(timers.map((t) => t.ms), [POST_GAP_MS]);
  timers.shift().fn();
  assert.deepEqual(sent, [0, 2]);
  await settle();
  timers.shift().fn();
  p.post(); // nothing new
  assert.deepEqual(sent, [0, 2]);
});

test('a failed post is tried again later; a room that is gone (404) is not posted to again', async () => {
  const { p, sent, timers, gone } = poster({ statuses: ['fail', 500, 200] });
  p.post();
  await settle();
  assert.deepEqual(timers.map((t) => t.ms), [POST_RETRY_MS]);
  timers.shift().fn();
  await settle();
  timers.shift().fn();
  await settle();
  assert.deepEqual(sent, [0, 0, 0]);
  const closed = poster({ statuses: [404] });
  let isClosed = false;
  closed.p.closed = () => isClosed;
  closed.p.post();
  await settle();
  assert.deepEqual(closed.gone, [true]);
  isClosed = true;
  closed.set(view(3));
  closed.timers.shift().fn();
  closed.p.post();
  assert.deepEqual(closed.sent, [0]);
  assert.deepEqual(gone, []);
});

class FakeSource {
  // An EventSource the test drives: emit(kind, data), fail(closed).
  static opened = [];

  constructor(url) {
    this.url = url;
    this.listeners = {};
    this.readyState = 0;
    this.closed = false;
    FakeSource.opened.push(this);
  }

  addEventListener(kind, fn) { (this.listeners[kind] ||= []).push(fn); }

  emit(kind, data) { for (const fn of this.listeners[kind] || []) fn({ data: JSON.stringify(data), lastEventId: '7' }); }

  fail(closed) {
    this.readyState = closed ? 2 : 0;
    for (const fn of this.listeners.error || []) fn({});
  }

  close() { this.closed = true; this.readyState = 2; }
}

function stream() {
  FakeSource.opened = [];
  const heard = [];
  const states = [];
  const timers = [];
  const s = new Stream({
    url: '/room/abc/events?watch=w',
    open: (url) => new FakeSource(url),
    later: (fn, ms) => timers.push({ fn, ms }),
    on: { view: (v) => heard.push(['view', v.index]), closed: () => heard.push(['closed']) },
    state: (offline) => states.push(offline),
  });
  return { s, heard, states, timers };
}

test('the room\'s events arrive as their JSON, each to its handler', () => {
  const { heard } = stream();
  const [source] = FakeSource.opened;
  source.emit('view', view(6));
  source.emit('tally', { index: 1, counts: [1] }); // no handler given: ignored
  source.emit('closed', {});
  assert.deepEqual(heard, [['view', 6], ['closed']]);
});

test('a dropped stream says so; one the browser gave up on is opened again after a pause, with the same address', () => {
  const { s, states, timers } = stream();
  const [first] = FakeSource.opened;
  first.fail(false); // the browser retries by itself
  assert.deepEqual(states, [true]);
  assert.equal(timers.length, 0);
  first.fail(true);
  assert.deepEqual(timers.map((t) => t.ms), [RECONNECT_MS]);
  timers.shift().fn();
  assert.equal(FakeSource.opened.length, 2);
  assert.equal(FakeSource.opened[1].url, first.url);
  FakeSource.opened[1].emit('open', {});
  assert.deepEqual(states, [true, true, false]);
  // A stream replaced meanwhile, or closed, is not opened again.
  FakeSource.opened[1].fail(true);
  s.close();
  timers.shift().fn();
  assert.equal(FakeSource.opened.length, 2);
  FakeSource.opened[1].fail(true);
  assert.equal(timers.length, 0);
});

function memory() {
  const items = new Map();
  return { getItem: (k) => (items.has(k) ? items.get(k) : null), setItem: (k, v) => items.set(k, String(v)), removeItem: (k) => items.delete(k) };
}

test('a follower answers each question once, kept in this tab, one set of answers a round', () => {
  const tab = memory();
  const store = tabStore(() => tab);
  const kept = new Answers(store, 'abc');
  assert.ok(kept.add(1, 3, 0));
  assert.ok(!kept.add(1, 3, 2));
  assert.ok(kept.add(2, 3, 1)); // another round
  assert.deepEqual([...kept.read(1)], [['3', 0]]);
  assert.deepEqual([...kept.read(2)], [['3', 1]]);
  assert.equal(store.get('fv-room-answers-abc-1'), '{"3":0}');
  assert.deepEqual([...new Answers(store, 'other').read(1)], []); // another room's
});

test('a tab that refuses storage (a private window) keeps nothing and throws nothing', () => {
  const refusing = tabStore(() => { throw new Error('SecurityError'); });
  assert.equal(refusing.get('x'), null);
  refusing.set('x', '1');
  refusing.remove('x');
  const answers = new Answers(refusing, 'abc');
  assert.ok(answers.add(1, 0, 1));
  assert.deepEqual([...answers.read(1)], []);
  const garbled = memory();
  garbled.setItem('fv-room-answers-abc-1', '{not json');
  assert.deepEqual([...new Answers(tabStore(() => garbled), 'abc').read(1)], []);
});
