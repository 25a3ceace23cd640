// Predict, then reveal: a hop may carry a question (hop.question: {ask, choices, answer (from 1), why}, from a
// questions file, see flow/trace/questions.py). With questions on, stepping onto such a hop first asks: the
// arrow is drawn as "next" with its label veiled, the hop's text and JSON wait, the choices are buttons; the
// teacher (or the class) picks one and reveals (the Reveal button, → or Enter), and the hop is shown with the
// right choice marked. Later arrows' labels are veiled while questions are on, so the diagram does not tell.
// Part of the viewer's module (flow/views/viewer.py joins the files); it uses the viewer's h() and fmt().

const CHOICE_KEYS = 'abcde';

class Quiz {
  constructor(viewer) {
    this.v = viewer;
    this.on = false;
    this.revealed = new Set();
    this.picked = new Map();
    this.el = h('div', { class: 'fv-quiz-card' });
    this.toggle = h('button', { class: 'fv-toggle fv-questions-toggle', type: 'button', 'aria-pressed': 'false', onclick: () => this.setOn(!this.on) });
  }

  reset() {
    this.revealed = new Set();
    this.picked = new Map();
  }

  count() {
    return this.v.hops ? this.v.hops.filter((hop) => hop.question).length : 0;
  }

  setOn(on) {
    this.on = !!on;
    this.toggle.setAttribute('aria-pressed', this.on ? 'true' : 'false');
    this.v.el.classList.toggle('fv-quiz', this.on);
    this.v.painted = -1;
    if (this.v.hops) this.v.paint(true);
    if (this.v.room) this.v.room.changed();
  }

  follower() {
    return !!(this.v.room && this.v.room.role === 'follower');
  }

  asking(i) {
    const hop = this.v.hops && this.v.hops[i];
    return !!(this.on && hop && hop.question && !this.revealed.has(i));
  }

  pick(i, k) {
    if (!this.asking(i)) return;
    // In a room a follower's pick is its one answer, sent to the teacher's tally.
    if (this.follower() && (this.picked.has(i) || !this.v.room.pick(i, k))) return;
    this.picked.set(i, k);
    this.show(i, this.v.lang);
  }

  reveal(i) {
    // A follower does not reveal: the teacher does, for the whole room.
    if (!this.asking(i) || this.follower()) return false;
    if (this.v.room) this.v.room.reveal(i);
    this.revealed.add(i);
    this.v.painted = -1;
    this.v.paint(true);
    return true;
  }

  key(k, i) {
    // Keys while a question waits: a letter picks, → / Enter / Space / PageDown reveals. True when handled.
    if (!this.asking(i)) return false;
    const n = CHOICE_KEYS.indexOf(k.toLowerCase());
    const choices = this.v.hops[i].question.choices;
    if (k.length === 1 && n >= 0 && n < choices.length) { this.pick(i, n); return true; }
    if (k === 'ArrowRight' || k === 'ArrowDown' || k === 'PageDown' || k === ' ' || k === 'Enter') return this.reveal(i);
    return false;
  }

  texts(L) {
    this.toggle.textContent = `${this.v.ui.questions[L]} (${this.count()})`;
    this.toggle.hidden = this.count() === 0;
  }

  show(i, L) {
    // The card for hop i: asking (choices to pick, a Reveal button) or revealed (the right one marked); or nothing.
    const hop = this.v.hops[i];
    const q = this.on && hop ? hop.question : null;
    if (!q) { this.el.replaceChildren(); this.el.hidden = true; return; }
    const ui = this.v.ui;
    const open = !this.revealed.has(i);
    const picked = this.picked.get(i);
    const room = this.v.room;
    // In a room everyone sees the count of every choice at the reveal. Before it the teacher's screen, which the
    // class sees on the projector, says only how many have answered (counts on show would steer those still
    // answering), unless the teacher turned live votes on (room.js).
    const tally = room ? room.counts.get(i) || (room.role === 'teacher' ? q.choices.map(() => 0) : null) : null;
    const hidden = !!(tally && open && room.role === 'teacher' && !room.liveVotes);
    const counts = hidden ? null : tally;
    const total = tally ? tally.reduce((a, b) => a + b, 0) : 0;
    const items = q.choices.map((c, k) => {
      const right = !open && k + 1 === q.answer;
      const cls = ['fv-choice', k === picked ? 'fv-picked' : '', right ? 'fv-right' : '', !open && k === picked && !right ? 'fv-wrong' : ''];
      const mark = right ? ' ✓' : !open && k === picked ? ' ✗' : '';
      return h('button', { class: cls.filter(Boolean).join(' '), type: 'button', 'data-choice': String(k + 1),
        'aria-pressed': k === picked ? 'true' : 'false', onclick: () => this.pick(i, k) },
      // The count floats right on the first line, before the words; a bar behind shows its share.
      counts ? h('span', { class: 'fv-votes', 'data-votes': String(counts[k] || 0),
        text: fmt((counts[k] === 1 ? ui.room_vote : ui.room_votes)[L], { n: counts[k] || 0 }) }) : null,
      counts && total ? h('span', { class: 'fv-vote-bar', style: `--fv-share:${Math.round((100 * (counts[k] || 0)) / total)}%` }) : null,
      h('b', { text: CHOICE_KEYS[k].toUpperCase() }), ' ', c[L], mark ? h('span', { class: 'fv-choice-mark', text: mark }) : null);
    });
    const waiting = this.follower() && open;
    this.el.hidden = false;
    this.el.dataset.state = open ? 'asking' : 'revealed';
    this.el.replaceChildren(...[
      h('div', { class: 'fv-quiz-head', text: open ? ui.predict[L] : ui.right_answer[L] + ui.colon[L] + CHOICE_KEYS[q.answer - 1].toUpperCase() }),
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
