// Predict, then reveal — the state, no DOM: whether questions are on, which hops' questions were revealed, which
// choice this screen picked for each (0-based). A hop's question (bundle hop.question: {ask, choices, answer (from
// 1), why}) waits while questions are on and it is not revealed yet. The keys that pick are the bundle's
// choice_keys (flow.trace.questions.CHOICE_KEYS): 'a' picks the first choice.

const REVEAL_KEYS = ['ArrowRight', 'ArrowDown', 'PageDown', ' ', 'Enter'];

export class QuizState {
  constructor() {
    this.on = false;
    this.revealed = new Set();
    this.picked = new Map();
  }

  reset() {
    this.revealed = new Set();
    this.picked = new Map();
  }

  asking(hops, i) {
    const hop = hops && hops[i];
    return !!(this.on && hop && hop.question && !this.revealed.has(i));
  }
}

export function quizKey(key, choices, choiceKeys) {
  // A key while a question waits: {pick: n} (0-based), 'reveal', or null.
  const n = choiceKeys.indexOf(key.toLowerCase());
  if (key.length === 1 && n >= 0 && n < choices) return { pick: n };
  return REVEAL_KEYS.includes(key) ? 'reveal' : null;
}

export function tallyShown(seat, question, open) {
  // What the card shows of a room's answers to a question: {counts (per choice, or null), total, hidden (only how
  // many answered: the teacher's screen, which the class sees, before the reveal, unless live votes are on)}. In a
  // room everyone sees the count of every choice at the reveal; outside one, nothing.
  // `seat`: null outside a room, else {role, counts (this question's tally or undefined), liveVotes}.
  const tally = seat ? seat.counts || (seat.role === 'teacher' ? question.choices.map(() => 0) : null) : null;
  const hidden = !!(tally && open && seat.role === 'teacher' && !seat.liveVotes);
  return { counts: hidden ? null : tally, total: tally ? tally.reduce((a, b) => a + b, 0) : 0, hidden };
}
