// MCP Flow trace viewer: one trace, stepped in the browser, no server round trip and no network.
//
// The Viewer puts its parts together and owns what they share: the bundle, the language and the mode. Where it is
// (a hop or the closing view) is the stepper's, what the screen shows for it the painter's (painter.mjs: a step
// paints on the next animation frame); each part owns its elements and its state (controls.mjs, diagram.mjs,
// lanes.mjs, hop_card.mjs, route.mjs, quiz.mjs, closing.mjs, overview.mjs, room.mjs) and tells the viewer what the
// user did through the callbacks it was given or a command's name (commandTable). The bundle comes from
// flow/views/viewer.py (viewer_bundle; its shape: schema/viewer-bundle.schema.json).
//
// For benchmarks and tests:
//   window.__viewer = {index, count, next(), prev(), goto(n), settle(n), closing, root}   (index 0-based; goto and
//   settle take 0-based; settle lays the hop out at once, where goto waits for the next frame)
//   the root element [data-flow-viewer] gets data-current="<1-based position>" once the frame showing that position
//   has been painted (a timer after the animation frame that drew it, which also scrolls the JSON card to the hop's
//   first marked field), with data-asking="1" while that hop's question waits to be revealed (see quiz.mjs), and
//   data-message the articles' message number of the current hop (see route.mjs; empty for a wire frame), and
//   data-layout the layout fit() chose for the box (wide, stack or phone).
//   After the last hop, → (or the button that takes Next's place there) shows the closing view, one more step: the
//   root gets data-closing="1"; Previous goes back to the last hop.

import { h } from './dom.mjs';
import { ClosingView } from './closing.mjs';
import { Controls, Header, Player } from './controls.mjs';
import { Diagram } from './diagram.mjs';
import { HopCard } from './hop_card.mjs';
import { HostLink, addressed, takeFocus, topLayer } from './host.mjs';
import { KeyRouter, OVERLAY_KEYS, keyCommand } from './keys.mjs';
import { Lanes } from './lanes.mjs';
import { chooseLayout } from './layout.mjs';
import { Overview } from './overview.mjs';
import { Painter, noteHeld } from './painter.mjs';
import { Quiz } from './quiz.mjs';
import { RoomLink, savedTeacherRoom } from './room.mjs';
import { RouteStrip } from './route.mjs';
import { Stepper } from './stepper.mjs';

class Viewer {
  constructor(root, host) {
    this.root = root;
    this.host = host;
    this.stepper = new Stepper();
    this.presenter = false;
    this.typed = '';
    this.room = null;
    this.hostLink = new HostLink(() => this.host, () => (this.hops ? { index: this.index, presenter: this.presenter } : null));
    this.build();
    this.keys = new KeyRouter({ viewer: () => this.el, slider: this.controls.slider, handle: (e) => this.handle(e) });
    this.onResize = () => { this.fit(); this.diagram.follow(true); };
    this.onFullscreen = () => { this.fit(); this.texts(); };
    window.addEventListener('resize', this.onResize);
    document.addEventListener('fullscreenchange', this.onFullscreen);
    window.__viewer = this.api();
  }

  get index() {
    return this.stepper.index;
  }

  get closing() {
    return this.stepper.closing;
  }

  api() {
    const v = this;
    return {
      get index() { return v.index; },
      get count() { return v.hops ? v.hops.length : 0; },
      next: () => v.move(1),
      prev: () => v.move(-1),
      goto: (n) => v.goto(n),
      settle: (n) => v.settle(n),
      get closing() { return v.closing; },
      root: v.el,
    };
  }

  destroy() {
    this.keys.destroy();
    window.removeEventListener('resize', this.onResize);
    document.removeEventListener('fullscreenchange', this.onFullscreen);
    this.resizer.disconnect();
    this.player.stop();
    if (this.room) this.room.destroy(false);
    this.painter.cancel();
    this.hostLink.cancel();
    if (window.__viewer && window.__viewer.root === this.el) delete window.__viewer;
    this.el.remove();
  }

  build() {
    this.commands = this.commandTable();
    const { jump } = this.commands;
    this.header = new Header();
    this.controls = new Controls(this.commands, { withLang: !!(this.host.standalone && !this.host.follower) });
    this.routeStrip = new RouteStrip({ jump, toggled: (on) => this.setCaptions(on) });
    this.quiz = new Quiz({
      toggled: (on) => this.setQuiz(on),
      revealed: (i) => { if (this.room) this.room.reveal(i); this.painter.repaint(); },
      seat: () => (this.room ? this.room.seat() : null),
    });
    this.routeStrip.tools.prepend(this.quiz.toggle);
    this.diagram = new Diagram();
    // The viewer's width changes with the window, or without it (the app's sidebar collapsing): lay out again. The
    // diagram's box changes height when the header wraps or the hop's text is longer: follow again.
    this.resizer = new ResizeObserver((entries) => {
      if (entries.some((e) => e.target === this.el) && this.el.clientWidth !== this.boxW) {
        this.fit();
        this.diagram.follow(true);
        return;
      }
      this.diagram.boxChanged();
    });
    this.card = new HopCard({ jump });
    const card = this.card;
    const side = h('div', { class: 'fv-side' }, card.label, card.pair, this.quiz.el, card.list, card.jsonTitle, card.json);
    // On a phone the diagram gives way to the trace as rows, one a hop, its lanes drawn small.
    this.lanes = new Lanes({ jump });
    this.closingView = new ClosingView();
    this.overview = new Overview({ jump });
    this.keysEl = h('div', { class: 'fv-keys' });
    this.el = h('div', { class: 'fv', 'data-flow-viewer': '', 'data-mode': 'normal', tabindex: '-1' },
      h('div', { class: 'fv-top' }, this.header.title, h('div', { class: 'fv-bar' }, this.header.where, this.controls.el), this.routeStrip.el),
      this.body = h('div', { class: 'fv-body' }, this.diagram.box, card.teach, side, this.lanes.el, this.closingView.el),
      h('div', { class: 'fv-foot' }, this.overview.caption, this.overview.el, this.keysEl));
    this.player = new Player({
      tick: () => {
        this.goto(this.index + 1);
        return !(this.index >= this.hops.length - 1 || this.quiz.asking(this.index));
      },
      changed: (on) => {
        this.el.classList.toggle('fv-playing', on);
        if (this.ui) this.controls.playing(this.ui, this.lang, on);
      },
    });
    const { el, diagram, lanes, header, quiz, routeStrip, controls, overview, closingView } = this;
    this.painter = new Painter(
      { el, diagram, lanes, header, quiz, routeStrip, card, controls, overview, closingView },
      () => ({ bundle: this.bundle, lang: this.lang, index: this.index, closing: this.closing, playing: this.player.playing,
        furthest: this.room ? this.room.furthest() : null }),
      (i) => this.hostLink.report(this.bundle.trace, i, this.player.playing),
    );
    this.root.append(this.el);
    this.resizer.observe(this.diagram.box);
    this.resizer.observe(this.el);
  }

  commandTable() {
    // What the controls and the keys ask the viewer to do, by name (controls.mjs, keys.mjs keyCommand).
    return {
      next: () => this.move(1),
      prev: () => this.move(-1),
      home: () => this.goto(0),
      end: () => this.goto(this.hops.length - 1),
      jump: (index) => this.goto(index),
      closing: () => this.openClosing(),
      play: () => (this.player.playing ? this.player.stop() : this.play()),
      speed: () => { if (this.player.playing) this.play(); },
      presenter: () => this.setPresenter(!this.presenter),
      'leave-presenter': () => this.setPresenter(false),
      fullscreen: () => this.fullscreen(),
      lang: () => this.setLang(this.lang === 'zh' ? 'en' : 'zh'),
    };
  }

  load(bundle, start) {
    const same = this.bundle && this.bundle.trace === bundle.trace;
    if (!same) this.leaveClosing();
    if (this.bundle && !same) takeFocus(this.el);
    const sameDrawing = same && this.bundle.lang === bundle.lang && this.bundle.svg === bundle.svg;
    this.bundle = bundle;
    this.hops = bundle.hops;
    if (!this.host.standalone || !this.lang) this.lang = bundle.lang;
    this.ui = bundle.ui;
    if (!sameDrawing) {
      this.diagram.draw(bundle, this.lang);
      this.lanes.forget();
    }
    if (!this.lanes.drawn && this.el.dataset.layout === 'phone') this.drawLanes();
    this.quiz.load(bundle, same);
    this.routeStrip.draw(bundle, this.lang);
    this.el.classList.toggle('fv-long', this.overview.draw(bundle));
    this.options(this.host.options);
    topLayer(this.el, this.presenter);
    this.controls.setCount(this.hops.length);
    this.stepper.load(this.hops.length, !!bundle.closing, start, same);
    this.texts();
    this.fit();
    this.painter.repaint();
    if (this.room) this.room.changed();
  }

  options(options) {
    // The host's toggles (the Step page's), applied when they change; the viewer's own buttons change them too.
    // load() paints and tells the room afterwards.
    const key = JSON.stringify(options || {});
    if (!options || key === this.appliedOptions) return;
    this.appliedOptions = key;
    // A toggle follows the host only when the host's own value changes: a rerun for another reason (a mode change)
    // must not undo what the viewer's buttons turned on.
    const heard = this.heardToggles || (this.heardToggles = {});
    const changed = (name) => name in options && heard[name] !== !!options[name] && ((heard[name] = !!options[name]), true);
    if (changed('captions')) this.setCaptions(!!options.captions);
    // The mode the host's URL names when the viewer is mounted (a reload in presenter mode stays in it); load() lays
    // it out. From then on the viewer's own mode is the news (it tells the host), and a page that reruns with a mode
    // it heard of before the last change cannot turn it back.
    if ('presenter' in options && !this.modeHeard) {
      this.modeHeard = true;
      this.presenter = !!options.presenter;
      this.el.dataset.mode = this.presenter ? 'presenter' : 'normal';
    } else if ('presenter' in options && !!options.presenter !== this.presenter && this.host.presenter) {
      this.host.presenter(this.presenter); // the page has not heard the last change (lost in a rerun): say it again
    }
    this.showQuiz(changed('questions') ? !!options.questions : this.quiz.on);
    // A classroom room (room.mjs): the teacher's, from the Step page, or a follower's, from the follower page.
    const room = options.room || null;
    if (this.room && (!room || room.code !== this.room.cfg.code || room.role !== this.room.role)) { this.room.destroy(true); this.room = null; }
    if (room && !this.room) this.room = new RoomLink(this.roomScreen(), room);
    // A teacher's page that reloaded has no room; the tab remembers the one it presented: ask the page to take
    // it back (once per viewer; the page checks the key with the room; a room closed here is forgotten).
    if (!room && this.host.reclaim && !this.reclaimAsked) {
      this.reclaimAsked = true;
      const saved = savedTeacherRoom();
      if (saved && saved.code && saved.key) this.host.reclaim({ code: String(saved.code), key: String(saved.key) });
    }
  }

  roomScreen() {
    // What a room may see of the viewer and do with it (room.mjs).
    return {
      el: this.el,
      controls: this.controls.el,
      ui: () => this.ui,
      lang: () => this.lang,
      view: () => ({ index: this.index, lang: this.lang, quiz: !!this.quiz.on, captions: !!this.routeStrip.captions, closing: !!this.closing }),
      setQuiz: (on) => this.setQuiz(on),
      setCaptions: (on) => this.setCaptions(on),
      goto: (i) => this.goto(i),
      openClosing: () => this.openClosing(),
      open: () => (this.hops ? this.hops.flatMap((_, i) => (this.quiz.asking(i) ? [i] : [])) : []),
      bounds: () => this.painter.paintControls(),
      load: (bundle, index) => { this.lang = bundle.lang; this.load(bundle, index); },
      newRound: (answers) => this.quiz.restore({ fresh: true, picked: answers }),
      revealed: (i) => {
        this.quiz.restore({ revealed: [i] });
        if (this.index === i) this.painter.repaint();
      },
      repaintQuiz: (i) => { if (this.index === i) this.quiz.show(i, this.lang); },
    };
  }

  followFrom(snapshot) {
    // A follower joined: the room's questions revealed so far with their counts, and this tab's own answers.
    const room = this.room;
    for (const [i, counts] of Object.entries(snapshot.revealed)) room.counts.set(+i, counts);
    this.quiz.restore({ revealed: Object.keys(snapshot.revealed), picked: room.answers.read(room.state.round) });
    room.heard(snapshot.view);
    this.painter.repaint();
  }

  // ---- the toggles and the mode ----

  showQuiz(on) {
    this.quiz.setOn(on);
    this.el.classList.toggle('fv-quiz', this.quiz.on);
  }

  setQuiz(on) {
    this.showQuiz(on);
    if (this.hops) this.painter.repaint();
    if (this.room) this.room.changed();
  }

  setCaptions(on) {
    this.routeStrip.setCaptions(on);
    this.el.classList.toggle('fv-with-captions', this.routeStrip.captions);
    if (this.hops) this.painter.paintRoute(this.hops[this.index], this.lang);
    this.fitSoon();
    if (this.room) this.room.changed();
  }

  setLang(lang) {
    this.lang = lang;
    if (this.lanes.drawn) this.drawLanes();
    this.texts();
    this.painter.repaint();
  }

  setPresenter(on) {
    this.presenter = on;
    this.el.dataset.mode = on ? 'presenter' : 'normal';
    topLayer(this.el, on);
    // Kept where a reload finds it: the page's URL (the host keeps it) or the file's address (#presenter).
    if (this.host.presenter) this.host.presenter(on);
    this.hostLink.remember();
    this.texts();
    this.fit();
    this.painter.repaint();
    this.el.focus({ preventScroll: true });
  }

  fullscreen() {
    if (document.fullscreenElement) { document.exitFullscreen(); return; }
    if (!this.presenter) this.setPresenter(true);
    if (this.el.requestFullscreen) this.el.requestFullscreen().catch(() => {});
  }

  texts() {
    const ui = this.ui;
    const L = this.lang;
    const bundle = this.bundle;
    // A sample's note tells what its questions ask: with questions it waits for the closing view.
    this.header.texts(bundle.title[L], noteHeld(bundle) ? '' : bundle.note[L] || '');
    this.controls.texts(ui, L, {
      closingTitle: bundle.closing ? bundle.closing[L].title : null, playing: this.player.playing,
      presenter: this.presenter, fullscreen: !!document.fullscreenElement,
    });
    this.card.texts(ui, L);
    this.overview.caption.textContent = ui.overview[L];
    this.keysEl.textContent = ui.keys[L];
    this.routeStrip.texts(L);
    this.quiz.texts(L);
    if (this.room) this.room.texts();
  }

  // ---- painting ----

  fit() {
    // The layout that fits the viewer's box (layout.mjs), then the drawing sized to it.
    if (!this.el.isConnected) return;
    this.boxW = this.el.clientWidth;
    const diagram = this.diagram;
    const { layout, column } = chooseLayout({
      width: this.body.clientWidth, natural: diagram.svg ? diagram.naturalW : 0, units: diagram.labelUnits || 20,
      presenter: this.presenter, chrome: diagram.chrome(),
    });
    if (layout !== this.el.dataset.layout) {
      this.el.dataset.layout = layout;
      if (layout === 'phone' && !this.lanes.drawn) this.drawLanes();
    }
    this.body.style.setProperty('--fv-diagram-w', column ? `${column}px` : '');
    if (!this.host.standalone && !this.presenter && layout !== 'phone') {
      // Fill the window below where the viewer starts, so the diagram, the text and the JSON are all above the fold.
      const top = this.el.getBoundingClientRect().top + window.scrollY;
      this.el.style.height = `${Math.max(420, window.innerHeight - top - 12)}px`;
    } else {
      this.el.style.height = '';
    }
    diagram.size(this.presenter, layout);
  }

  fitSoon() {
    // Something above the diagram changed height: size and follow again once it is laid out.
    requestAnimationFrame(() => { this.fit(); this.diagram.follow(true); });
  }

  drawLanes() {
    this.lanes.draw(this.bundle, this.lang);
    const hop = this.hops[this.index];
    if (hop) this.lanes.paint(hop.row, this.quiz.asking(this.index), this.el.dataset.layout === 'phone');
  }

  // ---- the closing view: one more step after the last hop ----

  openClosing() {
    if ((this.room && this.room.furthest() !== null) || !this.stepper.open()) return false;
    if (this.player.playing) this.player.stop();
    this.el.classList.add('fv-closed');
    this.painter.paintClosing();
    if (this.room) this.room.changed();
    return true;
  }

  leaveClosing() {
    if (!this.stepper.leave()) return;
    this.el.classList.remove('fv-closed');
    this.el.dataset.closing = '';
    this.painter.invalidate();
    if (this.room) this.room.changed();
  }

  // ---- moving ----

  move(delta) {
    // Forward from a waiting question reveals it first (the Next button, a clicker, the keys alike); forward from
    // the last hop opens the closing view, back from it returns to the last hop.
    // A paged closing view turns its pages first.
    if (this.closing && (delta > 0 ? this.closingView.forward() : this.closingView.back())) {
      this.controls.paintClosing(this.closingView.more());
      return;
    }
    switch (this.stepper.action(delta, this.quiz.revealable(this.index))) {
      case 'leave': this.leaveClosing(); this.painter.paint(true); break;
      case 'reveal': this.quiz.reveal(this.index); break;
      case 'open': this.openClosing(); break;
      case 'goto': this.goto(this.index + delta); break;
      default: break;
    }
  }

  goto(index) {
    if (!this.stepper.count) return;
    if (this.room) index = this.room.bound(index); // a follower does not read past a question still waiting
    this.leaveClosing();
    this.painter.moved();
    this.stepper.goto(index);
    if (this.room) this.room.changed();
    this.painter.schedule();
  }

  settle(n) {
    // Go to hop n and lay it out now, as the next frame would: the paint, the diagram following its box, the JSON
    // card at its first marked field (for tests that measure every hop in one call; a step waits for its frame).
    this.goto(n);
    this.painter.cancel();
    this.painter.paint(false);
    this.diagram.boxChanged();
    this.card.tree.reveal();
  }

  play() {
    this.player.stop();
    if (this.index >= this.hops.length - 1) this.goto(0);
    this.player.play(this.controls.period);
  }

  handle(e) {
    // A key for the viewer (keys.mjs); true when it did something with it.
    if (!this.el.isConnected || !this.hops) return false;
    const k = e.key;
    // The join code on screen: a key closes it first (a clicker's press should not step a viewer one cannot see).
    if (this.room && this.room.overlay && OVERLAY_KEYS.includes(k)) {
      this.room.closeQr();
      e.preventDefault();
      return true;
    }
    // An article's note open over the strip: Esc or a clicker's press closes it first.
    if ((k === 'Escape' || OVERLAY_KEYS.includes(k)) && this.routeStrip.closeNote()) { e.preventDefault(); return true; }
    if (!this.typed && this.quiz.key(k, this.index, this.lang)) { e.preventDefault(); return true; }
    const { cmd, typed, to } = keyCommand(k, { typed: this.typed, presenter: this.presenter, fullscreen: !!document.fullscreenElement });
    if (typed !== this.typed) { this.typed = typed; this.controls.showTyped(typed); }
    if (cmd === null) return false;
    if (cmd !== 'typed') this.commands[cmd](to);
    e.preventDefault();
    return true;
  }
}

export function mountViewer(root, bundle, host = {}) {
  let viewer = root.__flowViewer;
  if (!viewer) {
    if (host.standalone && !host.follower) host = { ...addressed(location.hash), ...host };
    viewer = new Viewer(root, host);
    root.__flowViewer = viewer;
  } else {
    viewer.host = { ...viewer.host, ...host };
  }
  viewer.load(bundle, host.start || 0);
  return viewer;
}
