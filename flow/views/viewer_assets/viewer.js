// MCP Flow trace viewer: one trace, stepped in the browser, no server round trip and no network.
//
// Hosts: the Streamlit custom component (the default export below) and the self-contained HTML
// export, which inlines this file and calls mountViewer(root, bundle, {standalone: true}).
// The bundle comes from flow/viewer.py (viewer_bundle): the diagram SVG drawn once, the hops with
// their teaching texts and JSON views, and the interface wording in Chinese and English.
//
// Stepping changes a number synchronously and paints on the next animation frame, so N key
// presses always move N hops, whatever the speed. Each paint touches only what changed: the
// arrows between the old and the new position, the panel texts, a window of the hop list.
//
// For benchmarks and tests:
//   window.__viewer = {index, count, next(), prev(), goto(n), settle(n)}   (index 0-based; goto and settle take
//   0-based; settle lays the hop out at once, where goto waits for the next frame)
//   the root element [data-flow-viewer] gets data-current="<1-based position>" once the frame
//   showing that position has been painted (a timer after the animation frame that drew it, which also scrolls
//   the JSON card to the hop's first marked field), with data-asking="1" while that hop's question waits to be revealed (see quiz.js), and data-message
//   the articles' message number of the current hop (see route.js; empty for a wire frame), and data-layout the
//   layout fit() chose for the box (wide, stack or phone).
//   After the last hop, → (or the button that takes Next's place there) shows the closing view (the bundle's `closing`, flow/views/closing.py: what this
//   run shows), one more step: the root gets data-closing="1"; Previous goes back to the last hop.
//
// The route at a glance (route.js) and the questions (quiz.js) are in their own files, joined
// before this one into one module.

const SPEEDS = [0.5, 1, 1.5, 2, 3, 5];
const LIST_BEFORE = 2;
const LIST_AFTER = 3;
const OVERVIEW_SLICES = 60;
const FAST_MS = 350; // presses closer than this scroll instantly
// The smallest arrow labels a layout may draw, in CSS px: a projector's back row reads 13 px at 1280 × 720 in normal
// mode and 16 px in presenter mode; a phone's reader, 12 px (where no layout draws the diagram that large, a phone
// gets rows instead, see fit()).
const LABEL_PX = 13;
const PRESENTER_LABEL_PX = 16;
const PHONE_PX = 640; // with no drawing to measure, a box narrower than this is a phone's
const GAP = 12; // between the diagram and the JSON card (.fv-body's column gap)
const LONG_STRING = 200; // characters of a string in the JSON card beyond which only its start shows
const LONG_STRING_SHOWN = 120;
const STEP_KEYS = ['ArrowRight', 'ArrowDown', 'PageDown', ' ', 'ArrowLeft', 'ArrowUp', 'PageUp']; // a clicker's, and the arrows

function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c != null) node.append(c);
  return node;
}

function fmt(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, k) => (k in values ? String(values[k]) : `{${k}}`));
}

function typeOf(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

// ---- the JSON inspector: a collapsible tree, opened at the hop's focus ----

function parsePath(path) {
  if (Array.isArray(path)) return path;
  if (typeof path !== 'string') return null;
  const out = [];
  for (const part of path.split('.')) {
    const m = part.match(/^([^[\]]*)((?:\[\d+\])*)$/);
    if (!m) return null;
    if (m[1]) out.push(m[1]);
    for (const idx of m[2].matchAll(/\[(\d+)\]/g)) out.push(Number(idx[1]));
  }
  return out;
}

function resolvePath(root, path) {
  // A focus path may be written against the view, or against the payload inside it.
  for (const prefix of [[], ['payload'], ['payload', 'body']]) {
    let node = root;
    let ok = true;
    const full = [...prefix, ...path];
    for (const key of full) {
      if (node !== null && typeof node === 'object' && Object.prototype.hasOwnProperty.call(node, key)) node = node[key];
      else if (Array.isArray(node) && typeof key === 'string' && /^\d+$/.test(key) && +key < node.length) node = node[+key];
      else { ok = false; break; }
    }
    if (ok) return full.map((k) => (Array.isArray(k) ? k : k));
  }
  return null;
}

class JsonTree {
  // The tree is drawn into a new box each time, put in the old one's place: a new box starts scrolled to the top,
  // where setting the old one's scrollTop would make the browser lay the page out then and there, every step.
  constructor(container, ui, swapped) {
    this.container = container;
    this.ui = ui;
    this.swapped = swapped;
  }

  fill(...nodes) {
    const box = this.container.cloneNode(false);
    box.append(...nodes);
    this.container.replaceWith(box);
    this.container = box;
    this.swapped(box);
  }

  show(value, focus, lang) {
    this.lang = lang;
    this.open = new Set();
    this.marks = new Map();
    const paths = [];
    for (const item of focus || []) {
      const raw = item && typeof item === 'object' && !Array.isArray(item) ? item.path : item;
      const color = item && typeof item === 'object' && !Array.isArray(item) ? item.color : null;
      const path = parsePath(raw);
      const found = path && resolvePath(value, path);
      if (!found) continue;
      if (item && item.open === true) {  // a container shown expanded, not marked
        for (let i = 0; i <= found.length; i++) this.open.add(JSON.stringify(found.slice(0, i)));
        continue;
      }
      paths.push(found);
      this.marks.set(JSON.stringify(found), color || '');
      for (let i = 0; i <= found.length; i++) this.open.add(JSON.stringify(found.slice(0, i)));
    }
    // With no focus, open three levels; with one, open the focus and keep the rest one click away.
    this.depth = paths.length ? 1 : 3;
    // A focused container shows its own contents too.
    for (const p of paths) this.open.add(JSON.stringify(p));
    this.fill(this.node(null, value, [], 0));
    this.first = this.container.querySelector('.fv-mark');
  }

  reveal() {
    // The first marked field at the top of the card. Called after the frame that shows the step: measuring while
    // painting it would hold that frame back.
    const first = this.first;
    this.first = null;
    if (!first || !first.isConnected) return;
    const top = first.getBoundingClientRect().top - this.container.getBoundingClientRect().top;
    this.container.scrollTop += top - 8;
  }

  keyLabel(key) {
    if (key === null) return null;
    return h('span', { class: typeof key === 'number' ? 'fv-idx' : 'fv-key', text: typeof key === 'number' ? `${key}` : JSON.stringify(key) });
  }

  node(key, value, path, depth, below = null) {
    // `below`: how many levels under a focused field this node sits (null outside any focus).
    const id = JSON.stringify(path);
    const mark = this.marks.get(id);
    const rel = mark !== undefined ? 0 : below;
    const kind = typeOf(value);
    let row;
    if (kind === 'object' || kind === 'array') {
      const entries = kind === 'array' ? value.map((v, i) => [i, v]) : Object.entries(value);
      const summary = h('summary', {}, this.keyLabel(key), key === null ? null : h('span', { class: 'fv-punct', text: ': ' }),
        h('span', { class: 'fv-punct', text: kind === 'array' ? '[' : '{' }),
        h('span', { class: 'fv-count', text: ' ' + fmt(this.ui[(kind === 'array' ? ['item', 'items'] : ['key_count', 'keys_count'])[entries.length === 1 ? 0 : 1]][this.lang], { n: entries.length }) + ' ' }),
        h('span', { class: 'fv-punct', text: kind === 'array' ? ']' : '}' }));
      row = h('details', { class: 'fv-branch' }, summary);
      const fill = () => {
        if (row.dataset.filled) return;
        row.dataset.filled = '1';
        const box = h('div', { class: 'fv-children' });
        for (const [k, v] of entries) box.append(this.node(k, v, [...path, k], depth + 1, rel === null ? null : rel + 1));
        row.append(box);
      };
      // Open: the first levels, the way to each focused field, and three levels inside it.
      if (depth < this.depth || this.open.has(id) || (rel !== null && rel < 3)) {
        fill();
        row.open = true;
      }
      row.addEventListener('toggle', () => { if (row.open) fill(); });
    } else {
      const text = kind === 'string' ? JSON.stringify(value) : String(value);
      const shown = h('span', { class: `fv-${kind}`, text });
      row = h('div', { class: 'fv-leaf' }, this.keyLabel(key), key === null ? null : h('span', { class: 'fv-punct', text: ': ' }), shown);
      // A long string (a tool's JSON result as text, a prompt) shows its start, the rest a click away, so the fields
      // after it stay in the card; a string the step is about shows whole.
      if (text.length > LONG_STRING && mark === undefined) {
        shown.textContent = text.slice(0, LONG_STRING_SHOWN) + '…';
        const more = h('button', { class: 'fv-more', type: 'button', text: fmt(this.ui.more_chars[this.lang], { n: text.length - LONG_STRING_SHOWN }) });
        more.addEventListener('click', () => { shown.textContent = text; more.remove(); });
        row.append(' ', more);
      }
    }
    if (mark !== undefined) {
      row.classList.add('fv-mark');
      if (mark) row.style.setProperty('--fv-mark', mark);
    }
    return row;
  }
}

// ---- the viewer ----

class Viewer {
  constructor(root, host) {
    this.root = root;
    this.host = host;
    this.index = 0;
    this.painted = -1;
    this.shownRow = -1;
    this.rowEls = [];
    this.presenter = false;
    this.playing = null;
    this.typed = '';
    this.lastMove = 0;
    this.fast = false;
    this.frame = 0;
    this.reportTimer = 0;
    this.closing = false;
    this.build();
    this.onKey = (e) => this.key(e);
    this.onKeyCapture = (e) => this.keyCapture(e);
    document.addEventListener('keydown', this.onKeyCapture, true);
    // How focus last moved: a pointer's press, or the Tab key.
    this.pointed = true;
    this.onPointer = () => { this.pointed = true; };
    this.onTab = (e) => { if (e.key === 'Tab') this.pointed = false; };
    document.addEventListener('pointerdown', this.onPointer, true);
    document.addEventListener('keydown', this.onTab, true);
    this.onResize = () => { this.fit(); this.follow(true); };
    this.onFullscreen = () => { this.fit(); this.texts(); };
    document.addEventListener('keydown', this.onKey);
    window.addEventListener('resize', this.onResize);
    document.addEventListener('fullscreenchange', this.onFullscreen);
    window.__viewer = this.api();
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
    document.removeEventListener('keydown', this.onKey);
    document.removeEventListener('keydown', this.onKeyCapture, true);
    document.removeEventListener('pointerdown', this.onPointer, true);
    document.removeEventListener('keydown', this.onTab, true);
    window.removeEventListener('resize', this.onResize);
    document.removeEventListener('fullscreenchange', this.onFullscreen);
    this.resizer.disconnect();
    this.stop();
    if (this.room) this.room.destroy(false);
    cancelAnimationFrame(this.frame);
    clearTimeout(this.reportTimer);
    if (window.__viewer && window.__viewer.root === this.el) delete window.__viewer;
    this.el.remove();
  }

  build() {
    const b = (cls, onclick) => h('button', { class: cls, type: 'button', onclick });
    this.titleEl = h('div', { class: 'fv-title' });
    this.whereEl = h('div', { class: 'fv-where', 'aria-live': 'polite' });
    this.prevBtn = b('fv-prev', () => this.move(-1));
    this.nextBtn = b('fv-next fv-primary', () => this.move(1));
    // At the last hop, in Next's place: the closing view (→ and a clicker's keys go there too).
    this.closingBtn = b('fv-closing-open fv-primary', () => this.showClosing());
    this.closingBtn.hidden = true;
    this.slider = h('input', { class: 'fv-slider', type: 'range', min: '1', max: '1', value: '1' });
    this.slider.addEventListener('input', () => this.goto(+this.slider.value - 1));
    this.playBtn = b('fv-play', () => (this.playing ? this.stop() : this.play()));
    this.speedSel = h('select', { class: 'fv-speed' });
    for (const s of SPEEDS) this.speedSel.append(h('option', { value: String(s), text: `${s} s` }));
    this.speedSel.value = '2';
    this.speedSel.addEventListener('change', () => { if (this.playing) this.play(); });
    this.presenterBtn = b('fv-presenter', () => this.setPresenter(!this.presenter));
    this.fullBtn = b('fv-full', () => this.fullscreen());
    this.langBtn = this.host.standalone && !this.host.follower ? b('fv-lang', () => this.setLang(this.lang === 'zh' ? 'en' : 'zh')) : null;
    this.typedEl = h('span', { class: 'fv-typed' });
    this.controls = h('div', { class: 'fv-controls' }, this.prevBtn, this.nextBtn, this.closingBtn, this.slider, this.typedEl,
      this.playBtn, this.speedSel, this.presenterBtn, this.fullBtn, this.langBtn);
    this.routeStrip = new RouteStrip(this);
    this.quiz = new Quiz(this);
    this.routeStrip.tools.prepend(this.quiz.toggle);
    this.svgBox = h('div', { class: 'fv-svg' });
    this.diagram = h('div', { class: 'fv-diagram' }, this.svgBox);
    // The scroll position as the user (or a smooth scroll) leaves it, without reading layout on each step.
    this.diagram.addEventListener('scroll', () => {
      if (this.scrollTimer) return;
      this.scrollTimer = setTimeout(() => { this.scrollTimer = 0; this.scrollY = this.diagram.scrollTop; this.scrollX = this.diagram.scrollLeft; }, 120);
    }, { passive: true });
    // The viewer's width changes with the window, or without it (the app's sidebar collapsing): lay out again. The
    // diagram's box changes height when the header wraps or the hop's text is longer: follow again.
    this.resizer = new ResizeObserver((entries) => {
      if (entries.some((e) => e.target === this.el) && this.el.clientWidth !== this.boxW) {
        this.fit();
        this.follow(true);
        return;
      }
      this.boxChanged();
    });
    this.labelEl = h('div', { class: 'fv-label' });
    // Hosted MCP: whether the hop was seen or reported, and the other side of the pair, a click away.
    this.pairEl = h('div', { class: 'fv-pair', hidden: '' });
    this.teachEl = h('div', { class: 'fv-teach' });
    this.listEl = h('ol', { class: 'fv-list' });
    this.jsonTitle = h('div', { class: 'fv-json-title' });
    this.jsonEl = h('div', { class: 'fv-json' });
    this.tree = null;
    this.side = h('div', { class: 'fv-side' }, this.labelEl, this.pairEl, this.quiz.el, this.listEl, this.jsonTitle, this.jsonEl);
    // On a phone the diagram gives way to the trace as rows, one a hop, its lanes drawn small (drawLanes).
    this.lanesEl = h('ol', { class: 'fv-lanes' });
    this.closingEl = h('div', { class: 'fv-closing', 'aria-live': 'polite' });
    this.overviewEl = h('div', { class: 'fv-overview' });
    this.overviewCaption = h('div', { class: 'fv-overview-caption' });
    this.keysEl = h('div', { class: 'fv-keys' });
    this.el = h('div', { class: 'fv', 'data-flow-viewer': '', 'data-mode': 'normal', tabindex: '-1' },
      h('div', { class: 'fv-top' }, this.titleEl, h('div', { class: 'fv-bar' }, this.whereEl, this.controls), this.routeStrip.el),
      this.body = h('div', { class: 'fv-body' }, this.diagram, this.teachEl, this.side, this.lanesEl, this.closingEl),
      h('div', { class: 'fv-foot' }, this.overviewCaption, this.overviewEl, this.keysEl));
    this.root.append(this.el);
    this.resizer.observe(this.diagram);
    this.resizer.observe(this.el);
  }

  load(bundle, start) {
    const same = this.bundle && this.bundle.trace === bundle.trace;
    if (!same) this.leaveClosing();
    if (this.bundle && !same) this.takeFocus();
    const sameDrawing = same && this.bundle.lang === bundle.lang && this.bundle.svg === bundle.svg;
    this.bundle = bundle;
    this.hops = bundle.hops;
    if (!this.host.standalone || !this.lang) this.lang = bundle.lang;
    this.ui = bundle.ui;
    this.tree = new JsonTree(this.jsonEl, this.ui, (box) => { this.jsonEl = box; });
    if (!sameDrawing) this.drawSvg();
    if (!sameDrawing) this.lanes = null;
    if (!this.lanes && this.el.dataset.layout === 'phone') this.drawLanes();
    if (!same) this.quiz.reset();
    this.routeStrip.draw(bundle, this.hops);
    this.drawOverview();
    this.options(this.host.options);
    this.layer();
    this.slider.max = String(this.hops.length);
    const index = same ? this.index : Math.max(0, Math.min(this.hops.length - 1, start | 0));
    this.index = index;
    this.painted = -1;
    this.texts();
    this.fit();
    this.paint(true);
    if (this.room) this.room.changed();
  }

  takeFocus() {
    // Another trace, chosen in the page (a sample from the sidebar's list, an upload, the last run): the keys step it
    // now (a clicker's PageDown, →), not the control that still holds the focus. Typing in a text box keeps it.
    const active = document.activeElement;
    if (!active || active === document.body || this.el.contains(active)) return;
    if (active.tagName === 'TEXTAREA' || active.isContentEditable || (active.tagName === 'INPUT' && active.type === 'text' && active.getAttribute('role') !== 'combobox')) return;
    active.blur();
    this.el.focus({ preventScroll: true });
  }

  options(options) {
    // The host's toggles (the Step page's), applied when they change; the viewer's own buttons change them too.
    const key = JSON.stringify(options || {});
    if (!options || key === this.appliedOptions) return;
    this.appliedOptions = key;
    if ('captions' in options) this.routeStrip.setCaptions(!!options.captions);
    if ('questions' in options) this.quiz.on = !!options.questions;
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
    this.quiz.setOn(this.quiz.on);
    // A classroom room (room.js): the teacher's, from the Step page, or a follower's, from the follower page.
    const room = options.room || null;
    if (this.room && (!room || room.code !== this.room.cfg.code || room.role !== this.room.role)) { this.room.destroy(true); this.room = null; }
    if (room && !this.room) this.room = new RoomLink(this, room);
    // A teacher's page that reloaded has no room; the tab remembers the one it presented: ask the page to take
    // it back (once per viewer; the page checks the key with the room; a room closed here is forgotten).
    if (!room && this.host.reclaim && !this.reclaimAsked) {
      this.reclaimAsked = true;
      const saved = savedTeacherRoom();
      if (saved && saved.code && saved.key) this.host.reclaim({ code: String(saved.code), key: String(saved.key) });
    }
  }

  boxChanged() {
    // The diagram's box may have changed size (the hop's text under it is longer or shorter): follow in the new one.
    const h = this.diagram.clientHeight;
    const w = this.diagram.clientWidth;
    if (h === this.viewH && w === this.viewW) return;
    this.viewH = h;
    this.viewW = w;
    this.follow(true);
  }

  settle(n) {
    // Go to hop n and lay it out now, as the next frame would: the paint, the diagram following its box, the JSON
    // card at its first marked field (for tests that measure every hop in one call; a step waits for its frame).
    this.goto(n);
    cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.paint(false);
    this.boxChanged();
    this.tree.reveal();
  }

  fitSoon() {
    // Something above the diagram changed height: size and follow again once it is laid out.
    requestAnimationFrame(() => { this.fit(); this.follow(true); });
  }

  drawSvg() {
    const b = this.bundle;
    this.rowEls = [];
    this.shownRow = -1;
    if (!b.svg) {
      this.svgBox.replaceChildren(h('p', { class: 'fv-error', text: fmt(b.ui.no_diagram[this.lang], { error: b.svg_error || '' }) }));
      this.svg = null;
      return;
    }
    this.svgBox.innerHTML = b.svg;
    this.measured = false;
    this.svg = this.svgBox.querySelector('svg');
    const vb = this.svg.viewBox.baseVal;
    this.naturalW = vb && vb.width ? vb.width : 800;
    this.naturalH = vb && vb.height ? vb.height : 600;
    this.svg.removeAttribute('width');
    this.svg.removeAttribute('height');
    const label = this.svg.querySelector('g.node[id^="label-"] text');
    this.labelUnits = (label && parseFloat(label.getAttribute('font-size'))) || 20;
    const byId = new Map(b.rows.map((id, r) => [id, r]));
    for (let r = 0; r < b.rows.length; r++) this.rowEls.push({ parts: [], label: null });
    let pending = [];
    // A self-call is drawn as three edges; only the last carries the id, so the first two join it.
    for (const g of this.svg.querySelectorAll('g.edge')) {
      const r = byId.get(g.id);
      if (r === undefined) { pending.push(g); continue; }
      this.rowEls[r].parts.push(...pending, g);
      this.rowEls[r].style = ['error', 'response', 'notification', 'self', 'request'].find((s) => g.classList.contains(s)) || '';
      pending = [];
    }
    for (const g of this.svg.querySelectorAll('g.node')) {
      if (!g.id.startsWith('label-')) continue;
      const r = byId.get(g.id.slice(6));
      if (r === undefined) continue;
      this.rowEls[r].label = g;
      g.classList.add('fv-label-node');
      if (this.rowEls[r].style === 'error') g.classList.add('error');
    }
    // Everything starts as "later"; painting the first position walks forward from there once.
    for (const row of this.rowEls) this.setRow(row, 'later');
    this.shownRow = -1;
  }

  drawLanes() {
    // The trace as rows for a phone: one a diagram row, its number, its lanes drawn small with the arrow between
    // them, who sends to whom and its label, in words at a size a phone reads.
    const lanes = this.bundle.lanes || [];
    const n = Math.max(1, lanes.length);
    const L = this.lang;
    const first = new Map();
    this.hops.forEach((hop, i) => { if (!first.has(hop.row)) first.set(hop.row, i); });
    const pos = (k) => `${((k + 0.5) * 100) / n}%`;
    this.lanes = [];
    const items = [];
    for (let r = 0; r < this.bundle.rows.length; r++) {
      const i = first.get(r);
      const hop = this.hops[i];
      if (!hop) continue;
      const [a, b] = hop.lanes || [0, 0];
      const track = h('span', { class: 'fv-lane-track', 'aria-hidden': 'true' });
      const provider = (this.bundle.provider && this.bundle.provider.lanes) || [];
      for (let k = 0; k < n; k++) track.append(h('i', { style: `left: ${pos(k)}`, class: provider.includes(k) ? 'fv-lane-provider' : '' }));
      const arrow = h('b', { class: (a === b ? 'fv-lane-self' : a < b ? 'fv-lane-right' : 'fv-lane-left') + (hop.reported ? ' fv-lane-reported' : '') });
      arrow.style.left = pos(Math.min(a, b));
      arrow.style.width = `${(Math.abs(a - b) * 100) / n}%`;
      track.append(arrow);
      const ends = hop.from[L] === hop.to[L] ? hop.from[L] : `${hop.from[L]} → ${hop.to[L]}`;
      const item = h('li', { class: 'fv-lane-row', onclick: () => this.goto(i) },
        h('span', { class: 'fv-lane-num', text: hop.number }), track,
        h('span', { class: 'fv-lane-text' }, h('span', { class: 'fv-lane-ends', text: ends }), h('span', { class: 'fv-li-label', text: hop.label })));
      if (this.rowEls[r] && this.rowEls[r].style === 'error') item.classList.add('fv-lane-error');
      this.lanes[r] = item;
      items.push(item);
    }
    this.lanesEl.replaceChildren(...items);
    this.laneShown = -1;
    const hop = this.hops[this.index];
    if (hop) this.paintLanes(hop.row, this.quiz.asking(this.index));
  }

  paintLanes(row, asking) {
    // The rows' states, as the diagram's arrows: earlier, the current one (or the one a question asks about), later;
    // only the rows between the old and the new position change.
    if (!this.lanes) return;
    const from = this.laneShown;
    const low = from < 0 ? 0 : Math.min(from, row);
    const high = from < 0 ? this.lanes.length - 1 : Math.max(from, row);
    for (let r = low; r <= high; r++) {
      const item = this.lanes[r];
      if (!item) continue;
      item.classList.toggle('fv-on', r === row);
      item.classList.toggle('fv-after', r > row || (r === row && asking));
    }
    this.laneShown = row;
    if (this.el.dataset.layout !== 'phone' || !this.lanes[row]) return;
    // The current row in view, with a row before it for context.
    const box = this.lanesEl;
    const item = this.lanes[row];
    const top = item.offsetTop - box.offsetTop;
    const before = this.lanes[row - 1] ? item.offsetTop - this.lanes[row - 1].offsetTop : 0;
    if (top - before < box.scrollTop || top + item.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = Math.max(0, top - before);
  }

  setRow(row, state) {
    // 'ask': the arrow a waiting question is about: drawn as the next one, its label veiled.
    const els = row.label ? [...row.parts, row.label] : row.parts;
    for (const g of els) {
      g.classList.toggle('fv-later', state === 'later' || state === 'ask');
      g.classList.toggle('fv-ask', state === 'ask');
      g.classList.toggle('fv-current', state === 'current');
    }
  }

  drawOverview() {
    const n = this.hops.length;
    const long = this.bundle.rows.length > 40;
    this.el.classList.toggle('fv-long', long);
    this.overviewEl.replaceChildren();
    this.slices = [];
    if (!long) return;
    const k = Math.min(OVERVIEW_SLICES, n);
    let phase = null;
    for (let s = 0; s < k; s++) {
      const from = Math.floor((s * n) / k);
      const to = Math.max(from, Math.floor(((s + 1) * n) / k) - 1);
      const counts = new Map();
      for (let i = from; i <= to; i++) { phase = this.hops[i].phase || phase; counts.set(phase, (counts.get(phase) || 0) + 1); }
      let major = null;
      for (const [p, c] of counts) if (major === null || c > counts.get(major)) major = p;
      const cell = h('button', { class: 'fv-slice', type: 'button', title: `${from + 1}–${to + 1}`, onclick: () => this.goto(from) });
      cell.style.background = major ? this.bundle.phases[major].color : '#eeeeee';
      this.slices.push({ from, to, cell });
      this.overviewEl.append(cell);
    }
  }

  texts() {
    const ui = this.ui;
    const L = this.lang;
    // A sample's note tells what its questions ask: with questions it waits for the closing view.
    const note = this.noteHeld() ? '' : this.bundle.note[L] || '';
    this.titleEl.replaceChildren(...[h('b', { text: this.bundle.title[L] || '' }), note ? h('span', { text: ' — ' + note }) : null].filter(Boolean));
    this.titleEl.title = note;
    this.prevBtn.textContent = '◀ ' + ui.prev[L];
    this.nextBtn.textContent = ui.next[L] + ' ▶';
    this.prevBtn.title = this.prevBtn.textContent + ' (←)';
    this.nextBtn.title = this.nextBtn.textContent + ' (→)';
    if (this.bundle.closing) this.closingBtn.textContent = this.bundle.closing[L].title + ' ▶';
    this.playBtn.textContent = this.playing ? '⏸ ' + ui.pause[L] : '▶ ' + ui.play[L];
    this.speedSel.title = ui.speed[L];
    this.presenterBtn.textContent = this.presenter ? ui.leave_presenter[L] : ui.presenter[L];
    const full = document.fullscreenElement ? ui.leave_fullscreen[L] : ui.fullscreen[L];
    this.fullBtn.textContent = full;
    this.fullBtn.title = full + ' (F)';
    if (this.langBtn) this.langBtn.textContent = ui.language[L];
    this.typedEl.title = ui.jump[L];
    this.jsonTitle.textContent = ui.json[L];
    this.overviewCaption.textContent = ui.overview[L];
    this.keysEl.textContent = ui.keys[L];
    this.routeStrip.texts(L);
    this.quiz.texts(L);
    if (this.room) this.room.texts();
  }

  setLang(lang) {
    this.lang = lang;
    if (this.lanes) this.drawLanes();
    this.texts();
    this.painted = -1;
    this.paint(true);
  }

  // ---- the closing view: one more step after the last hop ----

  showClosing() {
    const closing = this.bundle && this.bundle.closing;
    if (!closing || this.closing) return false;
    this.closing = true;
    if (this.playing) this.stop();
    this.el.classList.add('fv-closed');
    this.paintClosing();
    if (this.room) this.room.changed();
    return true;
  }

  leaveClosing() {
    if (!this.closing) return;
    this.closing = false;
    this.el.classList.remove('fv-closed');
    this.el.dataset.closing = '';
    this.painted = -1;
    if (this.room) this.room.changed();
  }

  noteHeld() {
    return !!this.bundle.closing && this.bundle.hops.some((hop) => hop.question);
  }

  paintClosing() {
    const c = this.bundle.closing[this.lang];
    const parts = [];
    const note = this.noteHeld() ? this.bundle.note[this.lang] || '' : '';
    if (note) parts.push(h('p', { class: 'fv-closing-note', text: note }));
    if (c.notice) parts.push(h('p', { class: 'fv-closing-notice', text: c.notice }));
    // Two columns on a wide screen: the questions and the roles, then the cost and the choice.
    const columns = [h('div', { class: 'fv-closing-col' }), h('div', { class: 'fv-closing-col' })];
    c.sections.forEach((s, k) => {
      const section = h('section', { class: `fv-closing-section fv-closing-${s.key}` }, h('h3', { text: s.heading }));
      if (typeof s.bar === 'number') {
        const pct = `${Math.round(s.bar * 100)}%`;
        const fill = h('span', { class: 'fv-closing-fill' });
        fill.style.width = pct;
        section.append(h('div', { class: 'fv-closing-bar', role: 'img', 'aria-label': pct }, fill, h('b', { text: pct })));
      }
      const list = h('ul', {});
      for (const item of s.items) {
        list.append(h('li', {}, item.label ? h('b', { class: 'fv-closing-label', text: item.label }) : null, item.text));
      }
      section.append(list);
      columns[k < c.sections.length / 2 ? 0 : 1].append(section);
    });
    parts.push(h('div', { class: 'fv-closing-cols' }, ...columns));
    this.closingEl.replaceChildren(...parts);
    this.closingEl.scrollTop = 0;
    this.whereEl.replaceChildren(h('span', { class: 'fv-num', text: c.title }),
      h('span', { class: 'fv-pos', text: fmt(this.ui.hop_of[this.lang], { i: this.hops.length, n: this.hops.length }) }));
    this.prevBtn.disabled = false;
    this.nextBtn.disabled = true;
    this.closingBtn.hidden = true;
    requestAnimationFrame(() => setTimeout(() => { if (this.closing) this.el.dataset.closing = '1'; }, 0));
  }

  // ---- moving ----

  move(delta) {
    if (this.closing) {  // the closing view is the step after the last hop
      if (delta < 0) { this.leaveClosing(); this.paint(true); }
      return;
    }
    // Forward from a waiting question reveals it first (the Next button, a clicker, the keys alike).
    if (delta > 0 && this.quiz.reveal(this.index)) return;
    if (delta > 0 && this.hops && this.index === this.hops.length - 1 && this.showClosing()) return;
    this.goto(this.index + delta);
  }

  goto(index) {
    if (!this.hops || !this.hops.length) return;
    const next = Math.max(0, Math.min(this.hops.length - 1, index | 0));
    this.leaveClosing();
    const now = performance.now();
    this.fast = now - this.lastMove < FAST_MS;
    this.lastMove = now;
    this.index = next;
    if (this.room) this.room.changed();
    if (!this.frame) this.frame = requestAnimationFrame(() => { this.frame = 0; this.paint(false); });
  }

  key(e) {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.composedPath ? e.composedPath()[0] : e.target;
    if (this.keysOf(target) === 'viewer') this.handle(e);
  }

  keyCapture(e) {
    // Before the page's own handlers: a control the mouse just clicked outside the viewer would take an arrow itself
    // (Streamlit's radios change their choice on one), so the viewer takes it first and keeps it. A closed list the
    // mouse chose from (the sidebar's samples) gives up the keys that step, and keeps the letters it searches with.
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.composedPath ? e.composedPath()[0] : e.target;
    const whose = this.keysOf(target);
    if (whose === 'list' && !STEP_KEYS.includes(e.key)) return;
    if ((whose === 'clicked' || whose === 'list') && this.handle(e)) e.stopPropagation();
  }

  handle(e) {
    // A key for the viewer; true when it did something with it.
    if (!this.el.isConnected || !this.hops) return false;
    const k = e.key;
    // The join code on screen: a key closes it first (a clicker's press should not step a viewer one cannot see).
    if (this.room && this.room.overlay && ['Escape', 'Enter', ' ', 'ArrowRight', 'ArrowDown', 'PageDown', 'ArrowLeft', 'ArrowUp', 'PageUp'].includes(k)) {
      this.room.closeQr();
      e.preventDefault();
      return true;
    }
    if (!this.typed && this.quiz.key(k, this.index)) { e.preventDefault(); return true; }
    let handled = true;
    if (k === 'ArrowRight' || k === 'ArrowDown' || k === 'PageDown' || k === ' ') this.move(1);
    else if (k === 'ArrowLeft' || k === 'ArrowUp' || k === 'PageUp') this.move(-1);
    else if (k === 'Home') this.goto(0);
    else if (k === 'End') this.goto(this.hops.length - 1);
    else if (/^[0-9]$/.test(k)) { this.typed = (this.typed + k).slice(-6); this.typedEl.textContent = this.typed; }
    else if (k === 'Backspace' && this.typed) { this.typed = this.typed.slice(0, -1); this.typedEl.textContent = this.typed; }
    else if (k === 'Enter' && this.typed) { this.goto(+this.typed - 1); this.typed = ''; this.typedEl.textContent = ''; }
    else if (k === 'p' || k === 'P') this.setPresenter(!this.presenter);
    else if (k === 'f' || k === 'F') this.fullscreen();
    else if (k === 'Escape') {
      if (this.typed) { this.typed = ''; this.typedEl.textContent = ''; } else if (this.presenter && !document.fullscreenElement) this.setPresenter(false);
      else handled = false;
    } else handled = false;
    if (handled) e.preventDefault();
    return handled;
  }

  keysOf(target) {
    // Whose a key is: 'field' (typing in a field, or a control reached with Tab: a keyboard user's), 'clicked' (a
    // radio, checkbox or button outside the viewer that the mouse just clicked: the sidebar's language, a lesson
    // toggle, "Present to a room"; a clicker's or an arrow's press after it still steps the viewer, instead of
    // changing that choice), 'list' (a closed drop-down list the mouse chose from: the same for the keys that step),
    // or 'viewer'. (:focus-visible cannot tell: Streamlit's widgets show focus after a click.)
    const tag = target && target.tagName ? target.tagName.toLowerCase() : '';
    if (!tag || target === this.slider) return 'viewer';
    if (tag === 'textarea' || tag === 'select' || target.isContentEditable) return 'field';
    if (target.getAttribute('role') === 'combobox' && target.getAttribute('aria-expanded') !== 'true' && !this.el.contains(target)) {
      return this.pointed ? 'list' : 'field';
    }
    const pressable = tag === 'button' || (tag === 'input' && ['radio', 'checkbox', 'button', 'submit', 'range'].includes(target.type));
    if (tag === 'input' && !pressable) return 'field';
    if (!pressable || this.el.contains(target)) return 'viewer';
    return this.pointed ? 'clicked' : 'field';
  }

  play() {
    this.stop();
    if (this.index >= this.hops.length - 1) this.goto(0);
    const period = +this.speedSel.value * 1000;
    const t0 = performance.now();
    let k = 0;
    // Each tick is timed from the start, not from the previous tick, so the pace does not drift.
    const tick = () => {
      k += 1;
      this.fast = true;
      this.goto(this.index + 1);
      if (this.index >= this.hops.length - 1 || this.quiz.asking(this.index)) { this.stop(); return; }
      this.playing = setTimeout(tick, Math.max(0, t0 + (k + 1) * period - performance.now()));
    };
    this.playing = setTimeout(tick, period);
    this.el.classList.add('fv-playing');
    this.texts();
  }

  stop() {
    if (this.playing) clearTimeout(this.playing);
    this.playing = null;
    if (this.el) this.el.classList.remove('fv-playing');
    if (this.ui) this.texts();
  }

  setPresenter(on) {
    this.presenter = on;
    this.el.dataset.mode = on ? 'presenter' : 'normal';
    this.layer();
    // Kept where a reload finds it: the page's URL (the host keeps it) or the file's address (#presenter).
    if (this.host.presenter) this.host.presenter(on);
    this.remember();
    this.texts();
    this.fit();
    this.painted = -1;
    this.paint(true);
    this.el.focus({ preventScroll: true });
  }

  layer() {
    // Presenter mode fills the window from the browser's top layer (a manual popover) where it can: above the page
    // whatever the page does meanwhile (Streamlit fades what a rerun has not redrawn yet, and the fade would put the
    // sidebar and the buttons below the viewer over it).
    if (!this.el.showPopover || !this.el.isConnected) return;
    const open = this.el.matches(':popover-open');
    if (this.presenter && !open) {
      this.el.popover = 'manual';
      this.el.showPopover();
    } else if (!this.presenter && open) {
      this.el.hidePopover();
      this.el.removeAttribute('popover');
    }
  }

  fullscreen() {
    if (document.fullscreenElement) { document.exitFullscreen(); return; }
    if (!this.presenter) this.setPresenter(true);
    if (this.el.requestFullscreen) this.el.requestFullscreen().catch(() => {});
  }

  // ---- painting ----

  fit() {
    // The layout that fits the viewer's box, decided by measuring it against the drawing: arrow labels at least
    // LABEL_PX (PRESENTER_LABEL_PX in presenter mode) and every lifeline on screen, so the diagram is never drawn
    // wider than its box.
    //   wide:  the diagram with the hop's text under it, the JSON card beside both, the whole height;
    //   stack: a box too narrow for a JSON card beside the diagram: the diagram across, the text and the JSON below;
    //   phone: a box where even the whole width draws labels too small: the hop's card first, then the trace as rows
    //          (drawLanes) in place of the diagram.
    if (!this.el.isConnected) return;
    const width = this.body.clientWidth;
    this.boxW = this.el.clientWidth;
    const least = this.presenter ? PRESENTER_LABEL_PX : LABEL_PX;
    const natural = this.svg ? this.naturalW : 0;
    const units = this.labelUnits || 20;
    let layout = 'wide';
    let column = 0;
    if (natural ? (width - 4) * units / natural < least : width < PHONE_PX) {
      layout = 'phone';
    } else if (natural) {
      // The drawing's width at that size, and what its box takes beside it: a border, and a scrollbar where the
      // system draws one (measured when the box is shown; 17 px otherwise, a classic scrollbar and the border).
      const chrome = this.diagram.offsetWidth ? this.diagram.offsetWidth - this.diagram.clientWidth : 17;
      const need = Math.ceil((natural * least) / units) + 5 + chrome;
      const sideLeast = this.presenter ? 400 : 300;
      if (width - GAP - need >= sideLeast) column = Math.max(need, width - GAP - Math.min(680, Math.max(sideLeast, width * 0.36)));
      else layout = 'stack';
    }
    if (layout !== this.el.dataset.layout) {
      this.el.dataset.layout = layout;
      if (layout === 'phone' && !this.lanes) this.drawLanes();
    }
    this.body.style.setProperty('--fv-diagram-w', column ? `${column}px` : '');
    if (!this.host.standalone && !this.presenter && layout !== 'phone') {
      // Fill the window below where the viewer starts, so the diagram, the text and the JSON are all above the fold.
      const top = this.el.getBoundingClientRect().top + window.scrollY;
      this.el.style.height = `${Math.max(420, window.innerHeight - top - 12)}px`;
    } else {
      this.el.style.height = '';
    }
    if (!this.svg || layout === 'phone') { this.scale = 0; return; }
    // As wide as the box allows (never wider: a lifeline off screen is a lifeline lost), up to a limit.
    const scale = Math.min(this.presenter ? 1.5 : 1.25, (this.diagram.clientWidth - 4) / this.naturalW);
    // Rounded down: a drawing a fraction of a pixel wider than its box would scroll sideways.
    this.svg.style.width = `${Math.floor(this.naturalW * scale)}px`;
    this.svg.style.height = `${Math.floor(this.naturalH * scale)}px`;
    this.scale = scale;
    // What follow() needs, read here (a resize or a mode change) rather than on every step.
    this.viewH = this.diagram.clientHeight;
    this.viewW = this.diagram.clientWidth;
    this.offsetX = Math.max(0, (this.svgBox.clientWidth - this.naturalW * scale) / 2);
    this.scrollY = this.diagram.scrollTop;
    this.scrollX = this.diagram.scrollLeft;
  }

  paint(force) {
    if (this.closing) { this.paintClosing(); return; }
    const i = this.index;
    if (!this.hops || (!force && i === this.painted)) return;
    const hop = this.hops[i];
    if (!hop) return;
    const L = this.lang;
    const ui = this.ui;
    const asking = this.quiz.asking(i);
    // Arrows: only the rows between the old and the new position change.
    if (this.rowEls.length) {
      const to = hop.row;
      const from = this.shownRow;
      if (from < 0) {
        for (let r = 0; r < to; r++) this.setRow(this.rowEls[r], 'earlier');
      } else if (to > from) {
        for (let r = from; r < to; r++) this.setRow(this.rowEls[r], 'earlier');
      } else if (to < from) {
        for (let r = to + 1; r <= from; r++) this.setRow(this.rowEls[r], 'later');
      }
      this.setRow(this.rowEls[to], asking ? 'ask' : 'current');
      this.shownRow = to;
    }
    this.paintLanes(hop.row, asking);
    const phase = hop.phase ? this.bundle.phases[hop.phase] : null;
    this.whereEl.replaceChildren(
      h('span', { class: 'fv-num', text: `${ui.step[L]} ${hop.number}` }),
      h('span', { class: 'fv-route', text: `${hop.from[L]} → ${hop.to[L]}` }),
      h('span', { class: 'fv-pos', text: fmt(ui.hop_of[L], { i: i + 1, n: this.hops.length }) }),
      phase ? h('span', { class: 'fv-pill', text: phase.name[L] }) : null);
    if (phase) this.whereEl.lastChild.style.setProperty('--fv-phase', phase.color);
    this.quiz.show(i, L);
    this.el.classList.toggle('fv-asking', asking);
    this.routeStrip.paint(hop, L);
    if (asking) {
      // The question first: the hop's label, text and JSON would give the answer away.
      this.labelEl.replaceChildren();
      this.paintPair(null, L);
      this.teachEl.hidden = true;
      this.tree.fill(h('p', { class: 'fv-hidden-hop', text: ui.hidden_hop[L] }));
    } else {
      this.labelEl.replaceChildren(h('code', { text: hop.kind }), ' · ', hop.label);
      this.paintPair(hop, L);
      this.teachEl.hidden = false;
      this.teachEl.textContent = hop.teach[L];
      this.tree.show(hop.view, hop.focus, L);
    }
    this.prevBtn.disabled = i === 0;
    this.nextBtn.disabled = i === this.hops.length - 1;
    this.closingBtn.hidden = !(this.bundle.closing && i === this.hops.length - 1);
    this.slider.value = String(i + 1);
    this.drawList(i);
    if (this.slices && this.slices.length) {
      for (const s of this.slices) s.cell.classList.toggle('fv-here', s.from <= i && i <= s.to);
    }
    this.painted = i;
    this.follow(this.fast || !!this.playing || force);
    this.report(i);
    const mark = i + 1;
    requestAnimationFrame(() => setTimeout(() => {
      this.tree.reveal();
      this.el.dataset.asking = asking ? '1' : '';
      this.el.dataset.current = String(mark);
    }, 0));
  }

  paintPair(hop, L) {
    // A hop the provider reported: seen too (a jump to the frame) or not (what nobody here can know), and where the
    // report and the frame disagree, in red; a frame the provider also reported: a jump to its report.
    const ui = this.ui;
    const parts = [];
    const jump = (pair, key) => h('button', { class: 'fv-pair-go', type: 'button', onclick: () => this.goto(pair.index),
      text: fmt(ui[key][L], { n: pair.index + 1 }) + ' ▸' });
    if (hop && hop.reported) {
      parts.push(h('span', { class: 'fv-pair-tag', text: ui.reported_tag[L] }));
      parts.push(hop.pair ? jump(hop.pair, 'observed_at') : h('span', { text: ui.not_observed[L] }));
      if (hop.mismatch) parts.push(h('span', { class: 'fv-mismatch', text: fmt(ui.mismatch[L], { what: hop.mismatch.join(', ') }) }));
    } else if (hop && hop.pair) {
      parts.push(h('span', { class: 'fv-pair-tag fv-pair-seen', text: ui.observed_tag[L] }), jump(hop.pair, 'reported_at'));
    }
    this.pairEl.replaceChildren(...parts);
    this.pairEl.hidden = !parts.length;
  }

  drawList(i) {
    // A window around the current hop: the list never grows with the trace.
    const from = Math.max(0, i - LIST_BEFORE);
    const to = Math.min(this.hops.length - 1, i + LIST_AFTER);
    const items = [];
    for (let k = from; k <= to; k++) {
      const hp = this.hops[k];
      const veiled = k === i && this.quiz.asking(i); // the hop asked about keeps its words until the reveal
      items.push(h('li', { class: k === i ? (veiled ? 'fv-on fv-after' : 'fv-on') : k > i ? 'fv-after' : '', onclick: () => this.goto(k) },
        h('b', { text: hp.number }), ' ', h('span', { class: 'fv-li-label', text: hp.label })));
    }
    this.listEl.replaceChildren(...items);
  }

  measure() {
    // Each row's box in drawing units, read once per drawing (getBBox ignores CSS scale and scrolling),
    // so following the current hop never forces a layout of the whole diagram.
    const graph = this.svg.querySelector('g.graph');
    const m = graph && graph.transform.baseVal.numberOfItems ? graph.transform.baseVal.consolidate().matrix : { e: 0, f: 0 };
    const vb = this.svg.viewBox.baseVal;
    for (const row of this.rowEls) {
      let top = Infinity; let bottom = -Infinity; let left = Infinity; let right = -Infinity;
      for (const g of row.label ? [...row.parts, row.label] : row.parts) {
        const b = g.getBBox();
        top = Math.min(top, b.y); bottom = Math.max(bottom, b.y + b.height);
        left = Math.min(left, b.x); right = Math.max(right, b.x + b.width);
      }
      row.box = { top: top + m.f - vb.y, bottom: bottom + m.f - vb.y, left: left + m.e - vb.x, right: right + m.e - vb.x };
    }
    this.measured = true;
  }

  follow(instant) {
    // Keep the current arrow and its label fully in view, with the arrow before it above for context.
    if (!this.svg || this.shownRow < 0 || !this.scale) return;
    if (!this.measured) this.measure();
    const row = this.rowEls[this.shownRow];
    if (!row || !row.box || !Number.isFinite(row.box.top)) return;
    const s = this.scale;
    const prev = this.rowEls[this.shownRow - 1];
    const margin = 12;
    const top = this.scrollY;
    const height = this.viewH;
    const curTop = row.box.top * s;
    const curBottom = row.box.bottom * s;
    const head = prev && prev.box && Number.isFinite(prev.box.top) ? Math.min(prev.box.top * s, curTop) : curTop;
    let y = top;
    if (head < top + margin || curBottom > top + height - margin) {
      y = head - margin;
      if (curBottom - y > height - margin) y = curTop - margin;
    }
    const left = this.scrollX;
    const width = this.viewW;
    const curLeft = row.box.left * s + this.offsetX;
    const curRight = row.box.right * s + this.offsetX;
    let x = left;
    if (curLeft < left + margin) x = curLeft - margin;
    else if (curRight > left + width - margin) x = Math.min(curRight - width + margin, curLeft - margin);
    // Where the browser can actually scroll to, so the remembered position stays true.
    y = Math.max(0, Math.min(y, this.naturalH * s - height));
    x = Math.max(0, Math.min(x, this.naturalW * s + this.offsetX - width));
    if (y === top && x === left) return;
    const reduce = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    this.scrollY = y;
    this.scrollX = x;
    this.diagram.scrollTo({ top: y, left: x, behavior: instant || reduce ? 'instant' : 'smooth' });
  }

  remember() {
    // The self-contained file keeps the hop and the mode in its address (#hop=N&presenter), so a reload, or a link
    // to the file, opens where the class was; the app keeps them in its own URL (the host's report and presenter).
    if (!this.host.standalone || this.host.follower || !this.hops) return;
    const hash = `#hop=${this.index + 1}${this.presenter ? '&presenter' : ''}`;
    if (location.hash !== hash) {
      try { history.replaceState(history.state, '', hash); } catch (e) { /* an address the browser will not change */ }
    }
  }

  report(i) {
    if (!this.host.report) { clearTimeout(this.reportTimer); this.reportTimer = setTimeout(() => this.remember(), 300); return; }
    clearTimeout(this.reportTimer);
    // Tell the host once the presses settle: one message per pause, not one per key; and only news.
    const trace = this.bundle.trace;
    this.reportTimer = setTimeout(() => {
      const news = `${trace}:${i + 1}`;
      if (this.reported === news) return;
      this.reported = news;
      this.host.report({ trace, hop: i + 1 });
    }, this.playing ? 0 : 300);
  }
}

function addressed() {
  // What a self-contained file's address asks for: {start (0-based), presenter}.
  const found = new URLSearchParams(location.hash.slice(1));
  const hop = parseInt(found.get('hop') || '', 10);
  return { start: Number.isFinite(hop) && hop > 0 ? hop - 1 : 0, options: found.has('presenter') ? { presenter: true } : null };
}

export function mountViewer(root, bundle, host = {}) {
  let viewer = root.__flowViewer;
  if (!viewer) {
    if (host.standalone && !host.follower) host = { ...addressed(), ...host };
    viewer = new Viewer(root, host);
    root.__flowViewer = viewer;
  } else {
    viewer.host = { ...viewer.host, ...host };
  }
  viewer.load(bundle, host.start || 0);
  return viewer;
}

// The Streamlit host (st.components.v2): data = {bundle, start, options: {questions, captions, presenter}}, as an object
// or as its JSON text.
// The position goes back as state "hop": {trace: the bundle's trace digest, hop: 1-based position},
// so a late report about a trace the page no longer shows can be told apart; a room this tab presented before
// a reload goes back as state "room": {code, key} (room.js), for the page to take back; presenter mode turned on
// or off goes back as state "presenter" (true or false), for the page's URL.
export default function (component) {
  const { parentElement, setStateValue } = component;
  const data = typeof component.data === 'string' ? JSON.parse(component.data) : component.data;
  if (!data || !data.bundle) return undefined;
  const viewer = mountViewer(parentElement, data.bundle, {
    start: data.start || 0, options: data.options || null, report: (value) => setStateValue('hop', value),
    reclaim: (value) => setStateValue('room', value), presenter: (on) => setStateValue('presenter', !!on),
  });
  return () => {
    viewer.destroy();
    delete parentElement.__flowViewer;
  };
}
