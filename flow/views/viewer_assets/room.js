// Classroom rooms (flow/rooms): the teacher's viewer posts its view (hop, language, the two toggles) to the app's
// room routes; each follower's viewer hears it over Server-Sent Events and follows, unless the student has looked
// back or ahead on their own ("back to the teacher" returns). A question the teacher reaches is answered once
// from each follower's screen; the teacher's viewer counts the answers and reveals; followers then see the
// right choice and their own. Until the reveal the teacher's screen (the projector) says how many answered, not the
// counts per choice, which would steer the students still answering; a toggle on the room's badge shows them live.
// Part of the viewer's module (flow/views/viewer.py joins the files).
//
// The room shows the trace on the teacher's screen: when the teacher's page shows another, the room starts a new
// round (the view carries it) and each follower fetches that round's bundle. When the teacher's page reloads, its
// stream drops and followers are told; the reloaded viewer finds its room in this tab's sessionStorage and asks
// the page to take it back (host.reclaim), so the class keeps its link.
//
// host.room (the teacher's, from the Step page): {role: 'teacher', code, key, watch, link, qr, lan}
// followRoom(root, {code}) (the follower page, flow/rooms/page.py) joins, loads the bundle and mounts a follower.

const ROOM_GAP_MS = 50; // the teacher's posts: one in flight, the latest view wins, at most 20 a second
const QR_SHOW_MS = 15000;
const TEACHER_ROOM = 'fv-teacher-room'; // sessionStorage: the room this tab presents, for a reload to take back
const LIVE_VOTES = 'fv-live-votes'; // sessionStorage: '1' when the teacher shows the counts before the reveal

function roomText(ui, key, L) {
  return ui[key] ? ui[key][L] : key;
}

function savedTeacherRoom() {
  try { return JSON.parse(sessionStorage.getItem(TEACHER_ROOM) || 'null'); } catch (e) { return null; }
}

function saveTeacherRoom(cfg) {
  try {
    if (cfg) sessionStorage.setItem(TEACHER_ROOM, JSON.stringify({ code: cfg.code, key: cfg.key }));
    else sessionStorage.removeItem(TEACHER_ROOM);
  } catch (e) { /* private mode: a reload then starts a new room */ }
}

class RoomLink {
  constructor(viewer, cfg) {
    this.v = viewer;
    this.cfg = cfg;
    this.role = cfg.role;
    this.url = `${cfg.base || ''}/room/${cfg.code}`;
    this.counts = new Map(); // hop index -> counts per choice (the teacher's live tally; everyone's at a reveal)
    this.followers = 0; // screens following now (the teacher's badge)
    this.joined = 0; // followers who ever joined
    this.round = cfg.round || 1; // which of the room's traces this follower shows
    this.teacherHere = cfg.teacher !== false;
    this.following = true;
    this.teacher = null; // the teacher's last view, as followers heard it
    this.applying = false;
    this.inflight = false;
    this.pending = false;
    this.lastPost = '';
    this.closed = false;
    this.liveVotes = false;
    try { this.liveVotes = sessionStorage.getItem(LIVE_VOTES) === '1'; } catch (e) { /* private mode: hidden */ }
    this.badge = h('div', { class: 'fv-room', 'data-room-role': this.role });
    this.banner = h('div', { class: 'fv-room-banner', hidden: '' });
    this.v.el.classList.add(this.role === 'teacher' ? 'fv-room-teacher' : 'fv-room-follower');
    this.v.controls.after(this.badge);
    this.v.el.querySelector('.fv-top').append(this.banner);
    this.listen();
    if (this.role === 'teacher') {
      // A room this tab presented already (a reload taken back) does not fill the screen with its code again.
      const saved = savedTeacherRoom();
      if (saved && saved.code === cfg.code) cfg.shown = true;
      saveTeacherRoom(cfg);
      this.post();
      if (cfg.qr && !cfg.shown) this.showQr();
    }
    this.texts();
  }

  destroy(forget) {
    // `forget`: the page stopped presenting (it closed the room): a reload has nothing to take back. A viewer
    // unmounted with the page still presenting keeps it, for the viewer mounted next.
    if (forget && this.role === 'teacher') saveTeacherRoom(null);
    this.closed = true;
    if (this.source) this.source.close();
    clearTimeout(this.qrTimer);
    this.badge.remove();
    this.banner.remove();
    if (this.overlay) this.overlay.remove();
    this.v.el.classList.remove('fv-room-teacher', 'fv-room-follower');
  }

  listen() {
    // A follower's stream carries its token: the room takes answers only from a screen that follows it.
    const q = this.role === 'teacher' ? `?watch=${encodeURIComponent(this.cfg.watch)}`
      : `?after=${this.cfg.after || 0}&token=${encodeURIComponent(this.cfg.token || '')}`;
    const source = new EventSource(this.url + '/events' + q);
    this.source = source;
    const on = (kind, fn) => source.addEventListener(kind, (e) => { this.lastId = +e.lastEventId; fn(JSON.parse(e.data)); });
    on('view', (view) => this.heard(view));
    on('tally', (t) => { this.counts.set(t.index, t.counts); this.repaintQuiz(t.index); });
    on('joined', (j) => { this.followers = j.followers; this.joined = j.joined || 0; this.texts(); });
    on('reveal', (r) => this.revealed(r));
    on('teacher', (t) => { this.teacherHere = !!t.here; this.texts(); });
    on('closed', () => this.gone());
    source.addEventListener('open', () => { this.offline = false; this.texts(); });
    source.addEventListener('error', () => {
      if (this.closed) return;
      this.offline = true;
      this.texts();
      if (source.readyState === EventSource.CLOSED) setTimeout(() => { if (!this.closed && this.source === source) this.listen(); }, 2000);
    });
  }

  // ---- the teacher ----

  view() {
    const v = this.v;
    return { index: v.index, lang: v.lang, quiz: !!v.quiz.on, captions: !!v.routeStrip.captions, closing: !!v.closing };
  }

  changed() {
    // The viewer moved or a toggle changed: the teacher posts; a follower checks whether it left the teacher.
    if (this.role === 'teacher') { this.post(); return; }
    if (this.applying || !this.teacher) return;
    const here = this.v.index === this.teacher.index && !!this.v.closing === !!this.teacher.closing;
    if (here !== this.following) { this.following = here; this.texts(); }
  }

  post() {
    if (this.role !== 'teacher' || this.closed) return;
    if (this.inflight) { this.pending = true; return; }
    const view = this.view();
    const body = JSON.stringify(view);
    if (body === this.lastPost) return;
    this.inflight = true;
    this.pending = false;
    const done = (ok) => {
      if (ok) this.lastPost = body;
      setTimeout(() => { this.inflight = false; if (this.pending || !ok) this.post(); }, ok ? ROOM_GAP_MS : 1000);
    };
    fetch(this.url + '/view', { method: 'POST', headers: { 'content-type': 'application/json', 'x-room-key': this.cfg.key }, body })
      .then((r) => { this.problem = r.ok ? '' : r.status === 404 ? 'room_gone' : ''; if (r.status === 404) this.gone(); done(r.ok || r.status === 404); })
      .catch(() => done(false));
  }

  reveal(index) {
    if (this.role !== 'teacher') return;
    fetch(this.url + '/reveal', { method: 'POST', headers: { 'content-type': 'application/json', 'x-room-key': this.cfg.key }, body: JSON.stringify({ index }) }).catch(() => {});
  }

  showQr() {
    const L = this.v.lang;
    const ui = this.v.ui;
    if (this.overlay) this.overlay.remove();
    const close = () => { if (this.overlay) { this.overlay.remove(); this.overlay = null; } };
    const qr = h('div', { class: 'fv-qr-code' });
    qr.innerHTML = this.cfg.qr || '';
    this.overlay = h('div', { class: 'fv-qr', role: 'dialog', onclick: close },
      h('div', { class: 'fv-qr-box' },
        h('div', { class: 'fv-qr-head', text: roomText(ui, 'room_join', L) }),
        qr,
        h('div', { class: 'fv-qr-link', text: this.cfg.link || '' }),
        this.cfg.lan === false ? h('div', { class: 'fv-qr-warn', text: roomText(ui, 'room_loopback', L) }) : null,
        h('div', { class: 'fv-qr-note', text: roomText(ui, 'room_qr_close', L) })));
    this.closeQr = close;
    this.v.el.append(this.overlay);
    clearTimeout(this.qrTimer);
    this.qrTimer = setTimeout(close, QR_SHOW_MS);
    this.cfg.shown = true;
  }

  setLiveVotes(on) {
    this.liveVotes = !!on;
    try { sessionStorage.setItem(LIVE_VOTES, this.liveVotes ? '1' : ''); } catch (e) { /* private mode */ }
    this.texts();
    this.repaintQuiz(this.v.index);
  }

  // ---- a follower ----

  heard(view) {
    this.teacher = view;
    const round = view.round || this.round;
    if (this.role === 'teacher') {
      if (round !== this.round) { this.round = round; this.counts.clear(); } // the room shows the page's new trace
      return;
    }
    const v = this.v;
    // The student was looking on their own and the teacher came to the same hop: they are together again.
    if (!this.following && v.index === view.index) this.following = true;
    if ((round !== this.round || view.lang !== v.lang) && this.cfg.bundleFor) {
      const wanted = `${round}:${view.lang}`;
      this.loading = wanted;
      this.cfg.bundleFor(view.lang, round).then((bundle) => {
        if (this.loading !== wanted || this.closed) return; // a later view asked for another bundle
        this.loading = null;
        if (round !== this.round) {
          // Another trace: its questions, answers and tallies start again, and the student follows its first view.
          this.round = round;
          this.counts.clear();
          v.quiz.reset();
          for (const [i, k] of this.answers()) v.quiz.picked.set(+i, k);
          this.following = true;
        }
        v.lang = bundle.lang;
        v.load(bundle, this.following ? this.teacher.index : v.index);
        this.apply();
      }).catch(() => { if (this.loading === wanted) this.loading = null; }); // a newer round is on its way
      return;
    }
    if (this.loading) return; // the bundle on its way applies the latest view when it arrives
    this.apply();
  }

  apply() {
    const v = this.v;
    const view = this.teacher;
    if (!view) return;
    this.applying = true;
    try {
      if (!!v.quiz.on !== view.quiz) v.quiz.setOn(view.quiz);
      if (!!v.routeStrip.captions !== view.captions) v.routeStrip.setCaptions(view.captions);
      if (this.following) {
        if (!view.closing || v.index !== view.index) v.goto(view.index);
        if (view.closing) v.showClosing(); // the step after the last hop, as the teacher has it
      }
    } finally {
      this.applying = false;
    }
    this.texts();
  }

  back() {
    this.following = true;
    this.apply();
  }

  pick(index, choice) {
    // A follower answers once; the answer is kept on this screen, the room keeps only the counts.
    if (this.role !== 'follower' || this.answers().has(String(index))) return false;
    const saved = this.answers();
    saved.set(String(index), choice);
    this.save(saved);
    fetch(this.url + '/answer', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: this.cfg.token, index, choice: choice + 1 }) }).catch(() => {});
    return true;
  }

  answers() {
    try { return new Map(Object.entries(JSON.parse(sessionStorage.getItem(this.answersKey()) || '{}'))); } catch (e) { return new Map(); }
  }

  save(map) {
    try { sessionStorage.setItem(this.answersKey(), JSON.stringify(Object.fromEntries(map))); } catch (e) { /* private mode */ }
  }

  answersKey() {
    return `fv-room-answers-${this.cfg.code}-${this.round}`; // each round (trace) of the room has its own answers
  }

  revealed(r) {
    this.counts.set(r.index, r.counts);
    this.v.quiz.revealed.add(r.index);
    if (this.v.index === r.index) { this.v.painted = -1; this.v.paint(true); } else this.repaintQuiz(r.index);
  }

  repaintQuiz(index) {
    if (this.v.index === index) this.v.quiz.show(index, this.v.lang);
  }

  gone() {
    this.closed = true;
    if (this.source) this.source.close();
    this.problem = 'room_gone';
    if (this.role === 'teacher') saveTeacherRoom(null);
    this.texts();
  }

  // ---- words ----

  texts() {
    const L = this.v.lang;
    const ui = this.v.ui;
    // The room's name on screen: the start of its code, lower case as the link has it.
    const parts = [h('b', { text: roomText(ui, 'room', L) + ' ' + this.cfg.code.slice(0, 4) })];
    if (this.role === 'teacher') {
      parts.push(' · ', fmt(roomText(ui, 'room_joined', L), { n: this.followers }));
      if (this.joined > this.followers) parts.push(' ', h('span', { class: 'fv-room-all', text: fmt(roomText(ui, 'room_joined_all', L), { n: this.joined }) }));
      parts.push(h('button', { class: 'fv-toggle fv-room-qr', type: 'button', onclick: () => this.showQr(), text: roomText(ui, 'room_show_qr', L) }));
      parts.push(h('button', { class: 'fv-toggle fv-room-live', type: 'button', 'aria-pressed': this.liveVotes ? 'true' : 'false',
        title: roomText(ui, 'room_votes_live_help', L), onclick: () => this.setLiveVotes(!this.liveVotes), text: roomText(ui, 'room_votes_live', L) }));
    }
    if (this.problem) parts.push(' · ', h('span', { class: 'fv-room-problem', text: roomText(ui, this.problem, L) }));
    else if (this.offline) parts.push(' · ', h('span', { class: 'fv-room-problem', text: roomText(ui, 'room_offline', L) }));
    this.badge.replaceChildren(...parts);
    if (this.role === 'follower' && this.teacher) {
      const n = this.teacher.index + 1;
      this.banner.hidden = false;
      // One state at a time: closed, the teacher away, following, or looking on one's own.
      const state = this.problem === 'room_gone' ? 'closed' : !this.teacherHere ? 'away' : this.following ? 'following' : 'own';
      this.banner.dataset.state = state;
      if (state === 'closed' || state === 'away') {
        this.banner.replaceChildren(h('span', { text: roomText(ui, state === 'closed' ? 'room_gone_banner' : 'room_teacher_away', L) }));
      } else {
        this.banner.replaceChildren(state === 'following'
          ? h('span', { text: fmt(roomText(ui, 'room_following', L), { n }) })
          : h('span', {}, fmt(roomText(ui, 'room_own', L), { n }) + ' ',
            h('button', { class: 'fv-primary fv-room-back', type: 'button', onclick: () => this.back(), text: fmt(roomText(ui, 'room_back', L), { n }) })));
      }
    }
  }
}

// The follower page: join (a token kept for this tab, so a reload is the same follower), fetch the trace in the
// teacher's language, mount the viewer and follow. A refusal (no such room, the room is full) is one line.
export async function followRoom(root, config) {
  const code = config.code;
  const url = `/room/${code}`;
  const say = (data) => {
    const zh = (navigator.language || '').startsWith('zh');
    root.replaceChildren(h('p', { class: 'fv-room-refused', text: (zh ? data.error_zh : data.error) || data.error || 'error' }));
  };
  const key = `fv-room-token-${code}`;
  let stored = null;
  try { stored = sessionStorage.getItem(key); } catch (e) { /* private mode */ }
  const joined = await fetch(url + '/join', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(stored ? { token: stored } : {}) });
  const data = await joined.json().catch(() => ({ error: `HTTP ${joined.status}` }));
  if (!joined.ok) { say(data); return null; }
  try { sessionStorage.setItem(key, data.token); } catch (e) { /* private mode */ }
  const cache = new Map();
  // A round's bundle never changes; a failed fetch is forgotten, so the next view asks again.
  const bundleFor = (lang, round) => {
    const key = `${round}:${lang}`;
    if (!cache.has(key)) {
      const got = fetch(`${url}/bundle/${lang}?round=${round}`).then((r) => { if (!r.ok) throw new Error(String(r.status)); return r.json(); });
      got.catch(() => cache.delete(key));
      cache.set(key, got);
    }
    return cache.get(key);
  };
  const snap = data.snapshot;
  const bundle = await bundleFor(snap.view.lang, snap.round);
  const viewer = mountViewer(root, bundle, {
    standalone: true, follower: true, start: snap.view.index,
    options: { questions: snap.view.quiz, captions: snap.view.captions,
      room: { role: 'follower', code, token: data.token, after: snap.last, round: snap.round, teacher: snap.teacher, bundleFor } },
  });
  const mine = viewer.room.answers();
  for (const [i, counts] of Object.entries(snap.revealed)) { viewer.room.counts.set(+i, counts); viewer.quiz.revealed.add(+i); }
  for (const [i, k] of mine) viewer.quiz.picked.set(+i, k);
  viewer.room.heard(snap.view);
  viewer.painted = -1;
  viewer.paint(true);
  return viewer;
}
