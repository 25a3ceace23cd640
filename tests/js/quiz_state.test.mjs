import assert from 'node:assert/strict';
import { test } from 'node:test';

import { HOPS, QUESTION, makeBundle } from './bundle.mjs';
import { QuizState, quizKey, tallyShown } from '../../flow/views/viewer_assets/quiz_state.mjs';

const { hops, choice_keys: keys } = makeBundle(HOPS);

test('a hop\'s question waits while questions are on and it is not revealed', () => {
  const quiz = new QuizState();
  assert.ok(!quiz.asking(hops, 1)); // questions off
  quiz.on = true;
  assert.ok(quiz.asking(hops, 1));
  assert.ok(!quiz.asking(hops, 0)); // no question there
  assert.ok(!quiz.asking(hops, 9)); // no such hop
  quiz.revealed.add(1);
  assert.ok(!quiz.asking(hops, 1));
  quiz.picked.set(1, 0);
  quiz.reset();
  assert.ok(quiz.asking(hops, 1) && quiz.picked.size === 0 && quiz.on);
});

test('a letter picks its choice; the stepping keys and Enter reveal; other keys are not the question\'s', () => {
  assert.deepEqual(quizKey('a', 3, keys), { pick: 0 });
  assert.deepEqual(quizKey('C', 3, keys), { pick: 2 });
  assert.equal(quizKey('d', 3, keys), null); // three choices
  for (const key of ['ArrowRight', 'ArrowDown', 'PageDown', ' ', 'Enter']) assert.equal(quizKey(key, 3, keys), 'reveal', key);
  assert.equal(quizKey('ArrowLeft', 3, keys), null);
});

test('in a room the teacher\'s screen says only how many answered before the reveal, unless live votes are on', () => {
  const teacher = (counts, liveVotes = false) => ({ role: 'teacher', counts, liveVotes });
  assert.deepEqual(tallyShown(teacher([1, 3, 0]), QUESTION, true), { counts: null, total: 4, hidden: true });
  assert.deepEqual(tallyShown(teacher([1, 3, 0], true), QUESTION, true), { counts: [1, 3, 0], total: 4, hidden: false });
  assert.deepEqual(tallyShown(teacher([1, 3, 0]), QUESTION, false), { counts: [1, 3, 0], total: 4, hidden: false });
  assert.deepEqual(tallyShown(teacher(undefined), QUESTION, true), { counts: null, total: 0, hidden: true }); // no answer yet
});

test('a follower sees counts only once the room has them (at the reveal); outside a room there are none', () => {
  const follower = (counts) => ({ role: 'follower', counts, liveVotes: false });
  assert.deepEqual(tallyShown(follower(undefined), QUESTION, true), { counts: null, total: 0, hidden: false });
  assert.deepEqual(tallyShown(follower([2, 2, 1]), QUESTION, false), { counts: [2, 2, 1], total: 5, hidden: false });
  assert.deepEqual(tallyShown(null, QUESTION, false), { counts: null, total: 0, hidden: false });
});
