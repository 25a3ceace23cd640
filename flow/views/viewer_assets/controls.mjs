// The viewer's header: the trace's title, where the current hop is (its step, who sends to whom, its position, its
// phase), and the control bar (previous, next or the closing view, a slider, the digits typed to jump, play with
// its speed, presenter mode, full screen, and the language in a self-contained file); and autoplay (Player).

import { h, fmt } from './dom.mjs';

const SPEEDS = [0.5, 1, 1.5, 2, 3, 5]; // seconds a hop
const DEFAULT_SPEED = '2';

export class Header {
  constructor() {
    this.title = h('div', { class: 'fv-title' });
    this.where = h('div', { class: 'fv-where', 'aria-live': 'polite' });
  }

  texts(title, note) {
    this.title.replaceChildren(...[h('b', { text: title || '' }), note ? h('span', { text: ' — ' + note }) : null].filter(Boolean));
    this.title.title = note;
  }

  paint(hop, i, count, phase, ui, L) {
    this.where.replaceChildren(
      h('span', { class: 'fv-num', text: `${ui.step[L]} ${hop.number}` }),
      h('span', { class: 'fv-route', text: `${hop.from[L]} → ${hop.to[L]}` }),
      h('span', { class: 'fv-pos', text: fmt(ui.hop_of[L], { i: i + 1, n: count }) }),
      phase ? h('span', { class: 'fv-pill', text: phase.name[L] }) : null);
    if (phase) this.where.lastChild.style.setProperty('--fv-phase', phase.color);
  }

  paintClosing(title, count, ui, L) {
    this.where.replaceChildren(h('span', { class: 'fv-num', text: title }),
      h('span', { class: 'fv-pos', text: fmt(ui.hop_of[L], { i: count, n: count }) }));
  }
}

export class Controls {
  // Each control runs one of the viewer's commands (viewer.mjs, commandTable(): the keys run the same ones): next,
  // prev, closing, jump(index), play, speed, presenter, fullscreen, lang. `withLang`: whether there is a language
  // button (a self-contained file's own; the app has its sidebar).
  constructor(commands, { withLang }) {
    const b = (cls, command) => h('button', { class: cls, type: 'button', onclick: () => commands[command]() });
    this.prev = b('fv-prev', 'prev');
    this.next = b('fv-next fv-primary', 'next');
    // At the last hop, in Next's place: the closing view (→ and a clicker's keys go there too).
    this.closing = b('fv-closing-open fv-primary', 'closing');
    this.closing.hidden = true;
    this.slider = h('input', { class: 'fv-slider', type: 'range', min: '1', max: '1', value: '1' });
    this.slider.addEventListener('input', () => commands.jump(+this.slider.value - 1));
    this.play = b('fv-play', 'play');
    this.speed = h('select', { class: 'fv-speed' });
    for (const s of SPEEDS) this.speed.append(h('option', { value: String(s), text: `${s} s` }));
    this.speed.value = DEFAULT_SPEED;
    this.speed.addEventListener('change', () => commands.speed());
    this.presenter = b('fv-presenter', 'presenter');
    this.full = b('fv-full', 'fullscreen');
    this.lang = withLang ? b('fv-lang', 'lang') : null;
    this.typed = h('span', { class: 'fv-typed' });
    this.el = h('div', { class: 'fv-controls' }, this.prev, this.next, this.closing, this.slider, this.typed,
      this.play, this.speed, this.presenter, this.full, this.lang);
  }

  get period() {
    return +this.speed.value * 1000;
  }

  texts(ui, L, { closingTitle, playing, presenter, fullscreen }) {
    this.prev.textContent = '◀ ' + ui.prev[L];
    this.next.textContent = ui.next[L] + ' ▶';
    this.prev.title = this.prev.textContent + ' (←)';
    this.next.title = this.next.textContent + ' (→)';
    if (closingTitle) this.closing.textContent = closingTitle + ' ▶';
    this.playing(ui, L, playing);
    this.speed.title = ui.speed[L];
    this.presenter.textContent = presenter ? ui.leave_presenter[L] : ui.presenter[L];
    const full = fullscreen ? ui.leave_fullscreen[L] : ui.fullscreen[L];
    this.full.textContent = full;
    this.full.title = full + ' (F)';
    if (this.lang) this.lang.textContent = ui.language[L];
    this.typed.title = ui.jump[L];
  }

  playing(ui, L, on) {
    this.play.textContent = on ? '⏸ ' + ui.pause[L] : '▶ ' + ui.play[L];
  }

  setCount(n) {
    this.slider.max = String(n);
  }

  paint(i, count, closingNext, furthest = null) {
    // At hop i of `count`; `closingNext`: the closing view comes next (the last hop of a trace that has one);
    // `furthest`: the last hop this screen may go to (a room's follower before a question), null for any.
    this.prev.disabled = i === 0;
    this.next.disabled = i === count - 1 || (furthest !== null && i >= furthest);
    this.closing.hidden = !closingNext;
    this.slider.value = String(i + 1);
  }

  paintClosing(morePages = false) {
    // Next turns a paged closing view's pages (closing.mjs); past the last there is nothing further.
    this.prev.disabled = false;
    this.next.disabled = !morePages;
    this.closing.hidden = true;
  }

  showTyped(typed) {
    this.typed.textContent = typed;
  }
}

export class Player {
  // Autoplay: `tick()` moves one hop and says whether to go on; `changed(on)` hears it start and stop. Each tick is
  // timed from the start, not from the previous tick, so the pace does not drift. `clock`: {now, later, cancel}.
  constructor({ tick, changed, clock }) {
    this.tick = tick;
    this.changed = changed;
    this.clock = clock || { now: () => performance.now(), later: (fn, ms) => setTimeout(fn, ms), cancel: (t) => clearTimeout(t) };
    this.timer = null;
  }

  get playing() {
    return this.timer !== null;
  }

  play(period) {
    if (this.timer !== null) this.clock.cancel(this.timer);
    const t0 = this.clock.now();
    let k = 0;
    const run = () => {
      k += 1;
      if (!this.tick()) { this.stop(); return; }
      this.timer = this.clock.later(run, Math.max(0, t0 + (k + 1) * period - this.clock.now()));
    };
    this.timer = this.clock.later(run, period);
    this.changed(true);
  }

  stop() {
    if (this.timer !== null) this.clock.cancel(this.timer);
    this.timer = null;
    this.changed(false);
  }
}
