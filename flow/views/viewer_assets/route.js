// The route at a glance: the articles' ten messages (and phase zero) in their four phases, with this app's six
// phases beneath, the current hop's message lit. Part of the viewer's module (flow/views/viewer.py joins the
// files); it uses the viewer's h() and fmt(). Data: bundle.route (flow.views.viewer.route_bundle), hop.message.
//
// A message with no hop in this trace is dim and says why; one the app does differently (direct mode's
// in-process hops, a server that did not report running the tool, the message where a failed run stopped) is
// half-dim with the reason; one the articles tell wrongly (message 3's sender, message 7's tool_call_id) carries
// its correction in its note and in the line below. A wire frame
// outside the numbered steps belongs to no message: nothing is lit and the line below says so.


class RouteStrip {
  constructor(viewer) {
    this.v = viewer;
    this.captions = false;
    this.el = h('div', { class: 'fv-routebox' });
    this.grid = h('div', { class: 'fv-rgrid' });
    this.detail = h('div', { class: 'fv-rdetail' });
    this.caption = h('div', { class: 'fv-rcaption' });
    this.captionBtn = h('button', { class: 'fv-toggle fv-captions-toggle', type: 'button', 'aria-pressed': 'false', onclick: () => this.setCaptions(!this.captions) });
    this.tools = h('div', { class: 'fv-rtools' }, this.captionBtn);
    this.el.append(this.grid, h('div', { class: 'fv-rline' }, h('div', { class: 'fv-rtexts' }, this.detail, this.caption), this.tools));
    this.current = undefined;
  }

  draw(bundle, hops) {
    const route = bundle.route;
    this.route = route;
    this.grid.replaceChildren();
    this.cells = [];
    this.appBands = [];
    this.articleLabel = h('div', { class: 'fv-rrowlabel', style: 'grid-row: 1; grid-column: 1' });
    this.appLabel = h('div', { class: 'fv-rrowlabel', style: 'grid-row: 3; grid-column: 1' });
    this.grid.append(this.articleLabel, this.appLabel);
    this.articleBands = route.spans.article.map(([p, a, b]) => {
      const band = h('div', { class: 'fv-rband fv-rarticle', 'data-article-phase': String(p), style: `grid-row: 1; grid-column: ${a + 2} / ${b + 3}` });
      this.grid.append(band);
      return band;
    });
    // Who talks to whom in this trace, per message: the distinct arrows in the order they first appear.
    const pairs = new Map();
    for (const hop of hops) {
      if (hop.message === null || hop.message === undefined) continue;
      const list = pairs.get(hop.message) || [];
      // hop.from is where its arrow starts: a timeout's is the waiting side (flow.views.diagram.drawn_ends)
      if (!list.some((p) => p.from.en === hop.from.en && p.to.en === hop.to.en)) list.push({ from: hop.from, to: hop.to });
      pairs.set(hop.message, list);
    }
    this.pairs = pairs;
    for (const m of route.messages) {
      const cell = h('button', { class: `fv-rcell fv-r-${m.state}`, type: 'button', 'data-message': String(m.n), 'data-state': m.state,
        style: `grid-row: 2; grid-column: ${m.n + 2}` });
      // A message this trace does not have says why in the line below instead.
      cell.addEventListener('click', () => (m.first !== null ? this.v.goto(m.first) : this.explain(m)));
      cell.style.setProperty('--fv-phase', bundle.phases[m.app_phase].color);
      this.cells.push({ m, cell });
      this.grid.append(cell);
    }
    for (const [phase, a, b] of route.spans.app) {
      const first = route.messages.slice(a, b + 1).map((m) => m.first).find((f) => f !== null);
      const band = h('button', { class: 'fv-rband fv-rapp', type: 'button', 'data-phase': phase, style: `grid-row: 3; grid-column: ${a + 2} / ${b + 3}` });
      band.style.setProperty('--fv-phase', bundle.phases[phase].color);
      if (first !== undefined) band.addEventListener('click', () => this.v.goto(first));
      else band.disabled = true;
      this.appBands.push(band);
      this.grid.append(band);
    }
    this.current = undefined;
  }

  texts(L) {
    const ui = this.v.ui;
    this.articleLabel.textContent = ui.route_article[L];
    this.appLabel.textContent = ui.route_app[L];
    for (const band of this.articleBands) {
      const phase = this.route.article_phases[band.dataset.articlePhase];
      band.textContent = phase.short[L];
      band.title = phase.name[L];
    }
    for (const band of this.appBands) band.textContent = this.v.bundle.phases[band.dataset.phase].name[L];
    for (const { m, cell } of this.cells) {
      const n = m.n === 0 ? ui.route_zero[L] : String(m.n);
      const extra = m.reason_short ? m.reason_short[L] : m.visits > 1 ? fmt(ui.route_visits[L], { n: m.visits }) : '';
      cell.replaceChildren(h('span', { class: 'fv-rnum', text: n }), h('span', { class: 'fv-rname', text: m.name[L] }));
      if (extra) cell.append(h('span', { class: 'fv-rnote', text: extra }));
      const head = m.n === 0 ? ui.route_phase_zero[L] : fmt(ui.route_message[L], { n: m.n });
      cell.title = [`${head} · ${m.name[L]}`, fmt(ui.route_says[L], { route: m.article_route[L] }),
        m.reason_text ? m.reason_text[L] : '', m.first !== null ? ui.route_jump[L] : ''].filter(Boolean).join('\n');
    }
    this.captionBtn.textContent = ui.captions[L];
    this.current = undefined;
  }

  setCaptions(on) {
    this.captions = !!on;
    this.captionBtn.setAttribute('aria-pressed', this.captions ? 'true' : 'false');
    this.v.el.classList.toggle('fv-with-captions', this.captions);
    this.current = undefined;
    if (this.v.hops) this.paint(this.v.hops[this.v.index], this.v.lang);
    this.v.fitSoon();
    if (this.v.room) this.v.room.changed();
  }

  explain(m) {
    const L = this.v.lang;
    const ui = this.v.ui;
    this.current = undefined; // the next step paints the current message again
    this.detail.replaceChildren(...[h('b', { text: `${fmt(ui.route_message[L], { n: m.n })} · ${m.name[L]}` }),
      h('span', { class: 'fv-rsays', text: fmt(ui.route_says[L], { route: m.article_route[L] }) }),
      m.reason_text ? h('span', { class: 'fv-rreason', text: m.reason_text[L] }) : null].filter(Boolean));
  }

  paint(hop, L) {
    const n = hop && hop.message !== undefined ? hop.message : null;
    const key = `${n}:${L}:${hop && hop.aside ? hop.aside.en : ''}`;
    if (key === this.current) return;
    this.current = key;
    for (const { m, cell } of this.cells) cell.classList.toggle('fv-here', m.n === n);
    const m = n === null ? null : this.route.messages[n];
    for (const band of this.articleBands) band.classList.toggle('fv-on', m !== null && +band.dataset.articlePhase === m.article_phase);
    for (const band of this.appBands) band.classList.toggle('fv-on', m !== null && band.dataset.phase === m.app_phase);
    this.v.el.dataset.message = n === null ? '' : String(n);
    const ui = this.v.ui;
    if (m === null) {
      this.detail.replaceChildren(h('span', { text: ui.route_outside[L] }));
      this.caption.textContent = '';
      return;
    }
    const head = m.n === 0 ? ui.route_phase_zero[L] : fmt(ui.route_message[L], { n: m.n });
    const pairs = (this.pairs.get(m.n) || []).map((p) => p.from[L] === p.to[L] ? p.from[L] : `${p.from[L]} → ${p.to[L]}`);
    const here = pairs.length > 2 ? `${pairs.slice(0, 2).join('，')} …` : pairs.join(L === 'zh' ? '，' : ', ');
    const count = m.hops === 1 ? ui.route_hop[L] : fmt(ui.route_hops[L], { n: m.hops });
    this.detail.replaceChildren(...[
      h('span', { class: 'fv-rphase', text: this.route.article_phases[m.article_phase].short[L] }),
      h('b', { text: `${head} · ${m.name[L]}` }),
      h('span', { class: 'fv-rsays', text: fmt(ui.route_says[L], { route: m.article_route[L] }) }),
      h('span', { class: 'fv-rhere', text: fmt(ui.route_here[L], { route: here, hops: count }) }),
      h('span', { class: 'fv-rapp-step', text: fmt(ui.route_app_step[L], { n: m.n, name: m.app_name[L] }) }),
      m.reason_text ? h('span', { class: 'fv-rreason', text: m.reason_text[L] }) : null,
      hop.aside ? h('span', { class: 'fv-rreason', text: hop.aside[L] }) : null].filter(Boolean));
    this.caption.textContent = this.captions ? ui.caption_prefix[L] + m.caption[L] : '';
  }
}
