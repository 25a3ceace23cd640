// Predict, then reveal: a hop may carry a question (hop.question, from a questions file, see
// flow/trace/questions.py). With questions on, stepping onto such a hop first asks: the arrow is drawn as "next"
// with its label veiled, the hop's text and JSON wait, the choices are buttons; the teacher (or the class) picks one
// and reveals (the Reveal button, → or Enter), and the hop is shown with the right choice marked. Later arrows'
// labels are veiled while questions are on, so the diagram does not tell.
//
// The card and its toggle; the state is quiz_state.mjs's. In a room (room.mjs) the viewer hands the card a seat:
// {role, counts(i), liveVotes, send(i, k)}: a follower's pick is its one answer, sent to the teacher's tally.

import { h, fmt } from './dom.mjs';
import { QuizState, quizKey, tallyShown } from './quiz_state.mjs';

export class Quiz {
  // `toggled(on)`: the toggle was pressed; `revealed(i)`: the question at hop i was revealed here (the viewer
  // paints it, a room tells its followers); `seat()`: the room's seat, or null.
  constructor({ toggled, revealed, seat }) {
    this.state = new QuizState();
    this.onRevealed = revealed;
    this.seat = seat;
    this.hops = [];
    this.choiceKeys = '';
    this.el = h('div', { class: 'fv-quiz-card' });
    this.toggle = h('button', { class: 'fv-toggle fv-questions-toggle', type: 'button', 'aria-pressed': 'false', onclick: () => toggled(!this.state.on) });
  }

  load(bundle, same) {
    this.hops = bundle.hops;
    this.ui = bundle.ui;
    this.choiceKeys = bundle.choice_keys;
    if (!same) this.state.reset();
  }

  restore({ revealed = [], picked = new Map(), fresh = false }) {
    // A room's news: questions revealed for the whole room, this screen's own answers (hop index -> choice), and,
    // `fresh`, a new trace whose questions start again.
    if (fresh) this.state.reset();
    for (const i of revealed) this.state.revealed.add(+i);
    for (const [i, k] of picked) this.state.picked.set(+i, k);
  }

  get on() {
    return this.state.on;
  }

  setOn(on) {
    this.state.on = !!on;
    this.toggle.setAttribute('aria-pressed', this.state.on ? 'true' : 'false');
  }

  count() {
    return this.hops.filter((hop) => hop.question).length;
  }

  follower() {
    const seat = this.seat();
    return !!(seat && seat.role === 'follower');
  }

  asking(i) {
    return this.state.asking(this.hops, i);
  }

  revealable(i) {
    // Whether this screen may reveal the question waiting at hop i: a follower does not, the teacher does.
    return this.asking(i) && !this.follower();
  }

  pick(i, k, L) {
    if (!this.asking(i)) return;
    const seat = this.seat();
    if (this.follower() && (this.state.picked.has(i) || !seat.send(i, k))) return;
    this.state.picked.set(i, k);
    this.show(i, L);
  }

  reveal(i) {
    // True when the question at hop i is revealed now; a follower does not reveal: the teacher does, for the room.
    if (!this.revealable(i)) return false;
    this.state.revealed.add(i);
    this.onRevealed(i);
    return true;
  }

  key(k, i, L) {
    // Keys while a question waits: a letter picks, → / Enter / Space / PageDown reveals. True when handled (a
    // follower's reveal key is not: it steps on).
    if (!this.asking(i)) return false;
    const action = quizKey(k, this.hops[i].question.choices.length, this.choiceKeys);
    if (action === 'reveal') return this.reveal(i);
    if (action) this.pick(i, action.pick, L);
    return !!action;
  }

  texts(L) {
    this.toggle.textContent = `${this.ui.questions[L]} (${this.count()})`;
    this.toggle.hidden = this.count() === 0;
  }

  show(i, L) {
    // The card for hop i: asking (choices to pick, a Reveal button) or revealed (the right one marked); or nothing.
    const hop = this.hops[i];
    const q = this.state.on && hop ? hop.question : null;
    if (!q) { this.el.replaceChildren(); this.el.hidden = true; return; }
    const ui = this.ui;
    const keys = this.choiceKeys;
    const open = !this.state.revealed.has(i);
    const picked = this.state.picked.get(i);
    const seat = this.seat();
    const { counts, total, hidden } = tallyShown(seat && { role: seat.role, counts: seat.counts(i), liveVotes: seat.liveVotes }, q, open);
    const items = q.choices.map((c, k) => {
      const right = !open && k + 1 === q.answer;
      const cls = ['fv-choice', k === picked ? 'fv-picked' : '', right ? 'fv-right' : '', !open && k === picked && !right ? 'fv-wrong' : ''];
      const mark = right ? ' ✓' : !open && k === picked ? ' ✗' : '';
      return h('button', { class: cls.filter(Boolean).join(' '), type: 'button', 'data-choice': String(k + 1),
        'aria-pressed': k === picked ? 'true' : 'false', onclick: () => this.pick(i, k, L) },
      // The count floats right on the first line, before the words; a bar behind shows its share.
      counts ? h('span', { class: 'fv-votes', 'data-votes': String(counts[k] || 0),
        text: fmt((counts[k] === 1 ? ui.room_vote : ui.room_votes)[L], { n: counts[k] || 0 }) }) : null,
      counts && total ? h('span', { class: 'fv-vote-bar', style: `--fv-share:${Math.round((100 * (counts[k] || 0)) / total)}%` }) : null,
      h('b', { text: keys[k].toUpperCase() }), ' ', c[L], mark ? h('span', { class: 'fv-choice-mark', text: mark }) : null);
    });
    const waiting = this.follower() && open;
    this.el.hidden = false;
    this.el.dataset.state = open ? 'asking' : 'revealed';
    this.el.replaceChildren(...[
      h('div', { class: 'fv-quiz-head', text: open ? ui.predict[L] : ui.right_answer[L] + ui.colon[L] + keys[q.answer - 1].toUpperCase() }),
      h('div', { class: 'fv-quiz-ask', text: q.ask[L] }),
      h('div', { class: 'fv-choices' }, ...items),
      open && !waiting ? h('div', { class: 'fv-quiz-foot' },
        h('button', { class: 'fv-reveal fv-primary', type: 'button', onclick: () => this.reveal(i), text: ui.reveal[L] }),
        hidden ? h('span', { class: 'fv-quiz-answered', 'data-answered': String(total), text: fmt(ui.room_answered[L], { n: total }) }) : null,
        h('span', { class: 'fv-quiz-keys', text: ui.quiz_keys[L] })) : null,
      waiting ? h('div', { class: 'fv-quiz-foot fv-quiz-wait', text: picked === undefined ? ui.room_pick[L] : ui.room_sent[L] }) : null,
      !open && q.why ? h('div', { class: 'fv-quiz-why', text: q.why[L] }) : null].filter(Boolean));
  }
}
