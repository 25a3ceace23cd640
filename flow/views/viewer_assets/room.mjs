// Classroom rooms (flow/rooms): the teacher's viewer posts its view (hop, language, the two toggles) to the app's
// room routes; each follower's viewer hears it over Server-Sent Events and follows, unless the student has looked
// back or ahead on their own ("back to the teacher" returns); never past a question the teacher has not revealed
// (RoomState.furthest). A question the teacher reaches is answered once
// from each follower's screen; the teacher's viewer counts the answers and reveals; followers then see the
// right choice and their own. Until the reveal the teacher's screen (the projector) says how many answered, not the
// counts per choice, which would steer the students still answering; a toggle on the room's badge shows them live.
//
// The room shows the trace on the teacher's screen: when the teacher's page shows another, the room starts a new
// round (the view carries it) and each follower fetches that round's bundle. When the teacher's page reloads, its
// stream drops and followers are told; the reloaded viewer finds its room in this tab's sessionStorage and asks
// the page to take it back (host.reclaim), so the class keeps its link.
//
// host.room (the teacher's, from the Step page): {role: 'teacher', code, key, watch, link, qr, lan}; a follower's
// (follow.mjs): {role: 'follower', code, token, after, round, teacher, bundleFor}. The state, the posts and the
// stream are room_state.mjs's; this module puts the room on screen and follows the teacher. `screen`: what the
// viewer lets the room see and do (viewer.mjs, roomScreen).

import { h, fmt } from './dom.mjs';
import { Answers, Poster, RoomState, Stream, tabStore } from './room_state.mjs';

const QR_SHOW_MS = 15000;
const TEACHER_ROOM = 'fv-teacher-room'; // sessionStorage: the room this tab presents, for a reload to take back
const LIVE_VOTES = 'fv-live-votes'; // sessionStorage: '1' when the teacher shows the counts before the reveal

const tab = tabStore(() => sessionStorage);

function roomText(ui, key, L) {
  return ui[key] ? ui[key][L] : key;
}

export function savedTeacherRoom() {
  try { return JSON.parse(tab.get(TEACHER_ROOM) || 'null'); } catch { return null; }
}

function saveTeacherRoom(cfg) {
  // Private mode: a reload then starts a new room.
  if (cfg) tab.set(TEACHER_ROOM, JSON.stringify({ code: cfg.code, key: cfg.key }));
  else tab.remove(TEACHER_ROOM);
}

export class RoomLink {
  constructor(screen, cfg) {
    this.screen = screen;
    this.cfg = cfg;
    this.role = cfg.role;
    this.url = `${cfg.base || ''}/room/${cfg.code}`;
    this.state = new RoomState(cfg);
    this.answers = new Answers(tab, cfg.code);
    this.applying = false;
    this.liveVotes = tab.get(LIVE_VOTES) === '1';
    this.overlay = null;
    this.badge = h('div', { class: 'fv-room', 'data-room-role': this.role });
    this.banner = h('div', { class: 'fv-room-banner', hidden: '' });
    screen.el.classList.add(this.role === 'teacher' ? 'fv-room-teacher' : 'fv-room-follower');
    screen.controls.after(this.badge);
    screen.el.querySelector('.fv-top').append(this.banner);
    // A follower's stream carries its token: the room takes answers only from a screen that follows it.
    const q = this.role === 'teacher' ? `?watch=${encodeURIComponent(cfg.watch)}`
      : `?after=${cfg.after || 0}&token=${encodeURIComponent(cfg.token || '')}`;
    this.stream = new Stream({
      url: this.url + '/events' + q,
      open: (url) => new EventSource(url),
      later: (fn, ms) => setTimeout(fn, ms),
      on: {
        view: (view) => this.heard(view),
        tally: (t) => { this.state.counts.set(t.index, t.counts); this.repaintQuiz(t.index); },
        joined: (j) => { this.state.followers = j.followers; this.state.joined = j.joined || 0; this.texts(); },
        reveal: (r) => this.revealed(r),
        teacher: (t) => { this.state.teacherHere = !!t.here; this.texts(); },
        closed: () => this.gone(),
      },
      state: (offline) => { this.state.offline = offline; this.texts(); },
    });
    if (this.role === 'teacher') {
      this.poster = new Poster({
        view: () => screen.view(),
        send: (body) => fetch(this.url + '/view', { method: 'POST', headers: { 'content-type': 'application/json', 'x-room-key': cfg.key }, body }),
        later: (fn, ms) => setTimeout(fn, ms),
        closed: () => this.state.closed,
        gone: () => this.gone(),
      });
      // A room this tab presented already (a reload taken back) does not fill the screen with its code again.
      const saved = savedTeacherRoom();
      if (saved && saved.code === cfg.code) cfg.shown = true;
      saveTeacherRoom(cfg);
      this.poster.post();
      if (cfg.qr && !cfg.shown) this.showQr();
    }
    this.texts();
  }

  get counts() {
    return this.state.counts;
  }

  seat() {
    // What the quiz card needs of the room (quiz.mjs).
    return {
      role: this.role, liveVotes: this.liveVotes, counts: (i) => this.state.counts.get(i), send: (i, k) => this.pick(i, k),
    };
  }

  destroy(forget) {
    // `forget`: the page stopped presenting (it closed the room): a reload has nothing to take back. A viewer
    // unmounted with the page still presenting keeps it, for the viewer mounted next.
    if (forget && this.role === 'teacher') saveTeacherRoom(null);
    this.state.closed = true;
    this.stream.close();
    clearTimeout(this.qrTimer);
    this.badge.remove();
    this.banner.remove();
    if (this.overlay) this.overlay.remove();
    this.screen.el.classList.remove('fv-room-teacher', 'fv-room-follower');
  }

  // ---- the teacher ----

  changed() {
    // The viewer moved or a toggle changed: the teacher posts; a follower checks whether it left the teacher.
    if (this.role === 'teacher') { this.poster.post(); return; }
    if (this.applying) return;
    if (this.state.moved(this.screen.view())) this.texts();
  }

  reveal(index) {
    if (this.role !== 'teacher') return;
    fetch(this.url + '/reveal', { method: 'POST', headers: { 'content-type': 'application/json', 'x-room-key': this.cfg.key }, body: JSON.stringify({ index }) }).catch(() => {});
  }

  showQr() {
    const L = this.screen.lang();
    const ui = this.screen.ui();
    if (this.overlay) this.overlay.remove();
    const qr = h('div', { class: 'fv-qr-code' });
    qr.innerHTML = this.cfg.qr || '';
    this.overlay = h('div', { class: 'fv-qr', role: 'dialog', onclick: () => this.closeQr() },
      h('div', { class: 'fv-qr-box' },
        h('div', { class: 'fv-qr-head', text: roomText(ui, 'room_join', L) }),
        qr,
        h('div', { class: 'fv-qr-link', text: this.cfg.link || '' }),
        this.cfg.lan === false ? h('div', { class: 'fv-qr-warn', text: roomText(ui, 'room_loopback', L) }) : null,
        h('div', { class: 'fv-qr-note', text: roomText(ui, 'room_qr_close', L) })));
    this.screen.el.append(this.overlay);
    clearTimeout(this.qrTimer);
    this.qrTimer = setTimeout(() => this.closeQr(), QR_SHOW_MS);
    this.cfg.shown = true;
  }

  closeQr() {
    if (this.overlay) { this.overlay.remove(); this.overlay = null; }
  }

  setLiveVotes(on) {
    this.liveVotes = !!on;
    tab.set(LIVE_VOTES, this.liveVotes ? '1' : '');
    this.texts();
    this.repaintQuiz(this.screen.view().index);
  }

  // ---- a follower ----

  furthest() {
    // The last hop this screen may look at on its own, or null for anywhere (RoomState.furthest).
    return this.state.furthest(this.screen.open());
  }

  bound(index) {
    const limit = this.furthest();
    return limit === null ? index : Math.min(index, limit);
  }

  heard(view) {
    const screen = this.screen;
    const todo = this.state.heard(view, screen.view(), !!this.cfg.bundleFor);
    if (todo === 'apply') this.apply();
    if (!todo.fetch) return;
    const { round, lang, wanted } = todo.fetch;
    this.cfg.bundleFor(lang, round).then((bundle) => {
      const got = this.state.loaded(wanted, round);
      if (got === 'stale') return;
      if (got === 'round') screen.newRound(this.answers.read(this.state.round));
      screen.load(bundle, this.state.following ? this.state.teacher.index : screen.view().index);
      this.apply();
    }).catch(() => this.state.failed(wanted));
  }

  apply() {
    const view = this.state.teacher;
    if (!view) return;
    const screen = this.screen;
    this.applying = true;
    try {
      const here = screen.view();
      if (here.quiz !== view.quiz) screen.setQuiz(view.quiz);
      if (here.captions !== view.captions) screen.setCaptions(view.captions);
      this.state.rein(screen.view(), screen.open());
      if (this.state.following) {
        if (!view.closing || screen.view().index !== view.index) screen.goto(view.index);
        if (view.closing) screen.openClosing(); // the step after the last hop, as the teacher has it
      } else {
        screen.bounds(); // the teacher moved: how far this screen may look changed
      }
    } finally {
      this.applying = false;
    }
    this.texts();
  }

  back() {
    this.state.following = true;
    this.apply();
  }

  pick(index, choice) {
    // A follower answers once; the answer is kept on this screen, the room keeps only the counts.
    if (this.role !== 'follower' || !this.answers.add(this.state.round, index, choice)) return false;
    fetch(this.url + '/answer', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: this.cfg.token, index, choice: choice + 1 }) }).catch(() => {});
    return true;
  }

  revealed(r) {
    this.state.counts.set(r.index, r.counts);
    this.screen.revealed(r.index);
  }

  repaintQuiz(index) {
    this.screen.repaintQuiz(index);
  }

  gone() {
    this.state.gone();
    this.stream.close();
    if (this.role === 'teacher') saveTeacherRoom(null);
    this.texts();
  }

  // ---- words ----

  texts() {
    const L = this.screen.lang();
    const ui = this.screen.ui();
    const state = this.state;
    // The room's name on screen: the start of its code, lower case as the link has it.
    const parts = [h('b', { text: roomText(ui, 'room', L) + ' ' + this.cfg.code.slice(0, 4) })];
    if (this.role === 'teacher') {
      parts.push(' · ', fmt(roomText(ui, 'room_joined', L), { n: state.followers }));
      if (state.joined > state.followers) parts.push(' ', h('span', { class: 'fv-room-all', text: fmt(roomText(ui, 'room_joined_all', L), { n: state.joined }) }));
      parts.push(h('button', { class: 'fv-toggle fv-room-qr', type: 'button', onclick: () => this.showQr(), text: roomText(ui, 'room_show_qr', L) }));
      parts.push(h('button', { class: 'fv-toggle fv-room-live', type: 'button', 'aria-pressed': this.liveVotes ? 'true' : 'false',
        title: roomText(ui, 'room_votes_live_help', L), onclick: () => this.setLiveVotes(!this.liveVotes), text: roomText(ui, 'room_votes_live', L) }));
    }
    if (state.problem) parts.push(' · ', h('span', { class: 'fv-room-problem', text: roomText(ui, state.problem, L) }));
    else if (state.offline) parts.push(' · ', h('span', { class: 'fv-room-problem', text: roomText(ui, 'room_offline', L) }));
    this.badge.replaceChildren(...parts);
    const banner = state.banner();
    if (banner === null) return;
    const n = state.teacher.index + 1;
    this.banner.hidden = false;
    this.banner.dataset.state = banner;
    if (banner === 'closed' || banner === 'away') {
      this.banner.replaceChildren(h('span', { text: roomText(ui, banner === 'closed' ? 'room_gone_banner' : 'room_teacher_away', L) }));
    } else {
      this.banner.replaceChildren(banner === 'following'
        ? h('span', { text: fmt(roomText(ui, 'room_following', L), { n }) })
        : h('span', {}, fmt(roomText(ui, 'room_own', L), { n }) + ' ',
          h('button', { class: 'fv-primary fv-room-back', type: 'button', onclick: () => this.back(), text: fmt(roomText(ui, 'room_back', L), { n }) })));
    }
  }
}
