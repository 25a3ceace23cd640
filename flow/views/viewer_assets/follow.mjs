// The follower page (flow/rooms/page.py): join (a token kept for this tab, so a reload is the same follower), fetch
// the trace in the teacher's language, mount the viewer and follow. A refusal (no such room, the room is full) is
// one line.

import { h } from './dom.mjs';
import { tabStore } from './room_state.mjs';
import { mountViewer } from './viewer.mjs';

export async function followRoom(root, config) {
  const code = config.code;
  const url = `/room/${code}`;
  const say = (data) => {
    const zh = (navigator.language || '').startsWith('zh');
    root.replaceChildren(h('p', { class: 'fv-room-refused', text: (zh ? data.error_zh : data.error) || data.error || 'error' }));
  };
  const tab = tabStore(() => sessionStorage);
  const key = `fv-room-token-${code}`;
  const stored = tab.get(key);
  const joined = await fetch(url + '/join', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(stored ? { token: stored } : {}) });
  const data = await joined.json().catch(() => ({ error: `HTTP ${joined.status}` }));
  if (!joined.ok) { say(data); return null; }
  tab.set(key, data.token);
  const cache = new Map();
  // A round's bundle never changes; a failed fetch is forgotten, so the next view asks again.
  const bundleFor = (lang, round) => {
    const wanted = `${round}:${lang}`;
    if (!cache.has(wanted)) {
      const got = fetch(`${url}/bundle/${lang}?round=${round}`).then((r) => { if (!r.ok) throw new Error(String(r.status)); return r.json(); });
      got.catch(() => cache.delete(wanted));
      cache.set(wanted, got);
    }
    return cache.get(wanted);
  };
  const snap = data.snapshot;
  const bundle = await bundleFor(snap.view.lang, snap.round);
  const viewer = mountViewer(root, bundle, {
    standalone: true, follower: true, start: snap.view.index,
    options: { questions: snap.view.quiz, captions: snap.view.captions,
      room: { role: 'follower', code, token: data.token, after: snap.last, round: snap.round, teacher: snap.teacher, bundleFor } },
  });
  viewer.followFrom(snap);
  return viewer;
}
