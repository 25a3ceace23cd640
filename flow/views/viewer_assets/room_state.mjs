// A classroom room's side of the viewer, no DOM: what a screen in the room knows (RoomState), the teacher's posts
// (Poster: one in flight, the latest view wins), the event stream and its reconnection (Stream), and a follower's
// answers kept in this tab (Answers). room.mjs puts them on screen; the events' JSON is the room routes'
// (flow/rooms): view {index, lang, quiz, captions, closing, round}, tally {index, counts}, joined {followers,
// joined}, reveal {index, counts}, teacher {here}, closed {}.

export const POST_GAP_MS = 50; // the teacher's posts: at most 20 a second
export const POST_RETRY_MS = 1000;
export const RECONNECT_MS = 2000; // a stream the browser gave up on is opened again after this

export class RoomState {
  constructor(cfg) {
    this.role = cfg.role;
    this.counts = new Map(); // hop index -> counts per choice (the teacher's live tally; everyone's at a reveal)
    this.followers = 0; // screens following now (the teacher's badge)
    this.joined = 0; // followers who ever joined
    this.round = cfg.round || 1; // which of the room's traces this screen shows
    this.teacherHere = cfg.teacher !== false;
    this.following = true;
    this.teacher = null; // the teacher's last view, as followers heard it
    this.loading = null; // the round and language of the bundle on its way ('round:lang')
    this.problem = '';
    this.offline = false;
    this.closed = false;
  }

  heard(view, here, canFetch) {
    // The teacher's view arrived; `here`: this screen's {index, lang}; `canFetch`: whether this screen can fetch
    // the room's bundles (a follower's can). What to do: 'none', 'apply' (follow it), or {fetch: {round, lang,
    // wanted}} (another trace or language: its bundle first, then loaded()).
    this.teacher = view;
    const round = view.round || this.round;
    if (this.role === 'teacher') {
      if (round !== this.round) { this.round = round; this.counts.clear(); } // the room shows the page's new trace
      return 'none';
    }
    // The student was looking on their own and the teacher came to the same hop: they are together again.
    if (!this.following && here.index === view.index) this.following = true;
    if ((round !== this.round || view.lang !== here.lang) && canFetch) {
      const wanted = `${round}:${view.lang}`;
      this.loading = wanted;
      return { fetch: { round, lang: view.lang, wanted } };
    }
    return this.loading ? 'none' : 'apply'; // a bundle on its way applies the latest view when it arrives
  }

  loaded(wanted, round) {
    // The bundle asked for as `wanted` arrived: 'stale' (a later view asked for another, or the room closed),
    // 'round' (another trace: its questions, answers and tallies start again, and the student follows its first
    // view), or 'lang'.
    if (this.loading !== wanted || this.closed) return 'stale';
    this.loading = null;
    if (round === this.round) return 'lang';
    this.round = round;
    this.counts.clear();
    this.following = true;
    return 'round';
  }

  failed(wanted) {
    if (this.loading === wanted) this.loading = null; // a newer round is on its way
  }

  moved(here) {
    // A follower's screen moved (`here`: {index, closing}): whether it is with the teacher changed.
    if (this.role === 'teacher' || !this.teacher) return false;
    const together = here.index === this.teacher.index && !!here.closing === !!this.teacher.closing;
    if (together === this.following) return false;
    this.following = together;
    return true;
  }

  furthest(open) {
    // How far a follower may look on its own: null for anywhere (the closing view too), else the last hop index it
    // may reach. With questions off it may look ahead; with them on, not past the first question at or after the
    // teacher's hop still waiting for the teacher (`open`: the indices of the hops whose question waits), since the
    // hops after a question answer it. While the teacher's own hop asks, that is the teacher's hop: back, not ahead.
    // A closed room binds nobody.
    if (this.role !== 'follower' || !this.teacher || this.closed) return null;
    const first = open.find((i) => i >= this.teacher.index);
    return first === undefined ? null : first;
  }

  rein(here, open) {
    // A follower looking past where it may (`here`: {index, closing}; the teacher turned the questions on, or one
    // came back into question) follows the teacher again: true when it does now.
    const limit = this.furthest(open);
    if (this.following || limit === null || (here.index <= limit && !here.closing)) return false;
    this.following = true;
    return true;
  }

  gone() {
    this.closed = true;
    this.problem = 'room_gone';
  }

  banner() {
    // A follower's one line: closed, the teacher away, following, or looking on one's own (null before the
    // teacher's first view, and on the teacher's screen).
    if (this.role !== 'follower' || !this.teacher) return null;
    return this.problem === 'room_gone' ? 'closed' : !this.teacherHere ? 'away' : this.following ? 'following' : 'own';
  }
}

export class Poster {
  // The teacher's view to the room: one post in flight; a view that changes meanwhile is posted when it returns
  // (the latest then, not each one), at least POST_GAP_MS apart; a failed post is tried again after POST_RETRY_MS;
  // the same view is not posted twice; nothing once the room is `closed()`. `send(body)` resolves to the response
  // ({ok, status}); 404 means the room is `gone()`. `later(fn, ms)` is setTimeout.
  constructor({ view, send, later, closed, gone }) {
    this.view = view;
    this.send = send;
    this.later = later;
    this.closed = closed;
    this.gone = gone;
    this.inflight = false;
    this.pending = false;
    this.last = '';
  }

  post() {
    if (this.closed()) return;
    if (this.inflight) { this.pending = true; return; }
    const body = JSON.stringify(this.view());
    if (body === this.last) return;
    this.inflight = true;
    this.pending = false;
    const done = (ok) => {
      if (ok) this.last = body;
      this.later(() => { this.inflight = false; if (this.pending || !ok) this.post(); }, ok ? POST_GAP_MS : POST_RETRY_MS);
    };
    this.send(body)
      .then((r) => { if (r.status === 404) this.gone(); done(r.ok || r.status === 404); })
      .catch(() => done(false));
  }
}

export class Stream {
  // The room's events over Server-Sent Events. `open(url)` makes an EventSource; `on[kind](data)` gets the JSON of
  // each event of that kind (a kind with no handler is not listened for); `state(offline)` hears the stream drop and
  // come back. A stream the browser gave up on (CLOSED) is opened
  // again after RECONNECT_MS, with the same URL, unless close() was called or another stream took its place.
  constructor({ url, open, later, on, state }) {
    this.url = url;
    this.open = open;
    this.later = later;
    this.on = on;
    this.state = state;
    this.closed = false;
    this.source = null;
    this.listen();
  }

  listen() {
    const source = this.open(this.url);
    this.source = source;
    for (const [kind, heard] of Object.entries(this.on)) source.addEventListener(kind, (e) => heard(JSON.parse(e.data)));
    source.addEventListener('open', () => this.state(false));
    source.addEventListener('error', () => {
      if (this.closed) return;
      this.state(true);
      if (source.readyState === 2 /* EventSource.CLOSED */) {
        this.later(() => { if (!this.closed && this.source === source) this.listen(); }, RECONNECT_MS);
      }
    });
  }

  close() {
    this.closed = true;
    if (this.source) this.source.close();
  }
}

export class Answers {
  // A follower's answers in this tab (the room keeps only the counts): hop index (as a string) -> choice (0-based),
  // one store a round (trace) of the room. `store`: {get(key), set(key, text)} over the tab's sessionStorage.
  constructor(store, code) {
    this.store = store;
    this.code = code;
  }

  key(round) {
    return `fv-room-answers-${this.code}-${round}`;
  }

  read(round) {
    try { return new Map(Object.entries(JSON.parse(this.store.get(this.key(round)) || '{}'))); } catch { return new Map(); }
  }

  add(round, index, choice) {
    // False when this question was answered already: a follower answers once.
    const saved = this.read(round);
    if (saved.has(String(index))) return false;
    saved.set(String(index), choice);
    this.store.set(this.key(round), JSON.stringify(Object.fromEntries(saved)));
    return true;
  }
}

export function tabStore(storage) {
  // sessionStorage that never throws: a private window may refuse it (then nothing is kept and a reload starts
  // afresh). `storage()` returns the Storage; reading the global may throw too.
  const use = (fn, fallback) => { try { return fn(storage()); } catch { return fallback; } };
  return {
    get: (key) => use((s) => s.getItem(key), null),
    set: (key, value) => use((s) => { s.setItem(key, value); }, undefined),
    remove: (key) => use((s) => { s.removeItem(key); }, undefined),
  };
}
