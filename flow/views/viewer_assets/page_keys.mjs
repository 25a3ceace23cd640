// Presenter mode for a page that shows no viewer (Compare, Hops): the viewer's own keys (P to turn it on or off,
// Esc to leave; keys.mjs) and its rules for whose a key is (a field keeps what is typed in it), reported to the
// page as the trigger "presenter" (true or false); the page keeps the mode in its URL (?presenter=1), as Step
// through does, and hides Streamlit's chrome and sizes its text for a projector. In presenter mode a clicker's keys
// (and the arrows, Home, End) page through what is below the screen: the page scrolls in a box of its own, which
// the browser's own PageDown does not reach from the body.

import { KeyRouter, keyCommand } from './keys.mjs';

const PAGE_SHARE = 0.85; // of the screen a press moves: the last lines of one screen are the first of the next

export function presenterKey(key, on) {
  // The mode a key asks for (true, false), or null for a key that leaves it alone.
  const { cmd } = keyCommand(key, { presenter: on });
  if (cmd === 'presenter') return !on;
  if (cmd === 'leave-presenter') return false;
  return null;
}

export function pageTop(key, { top, height, client }) {
  // Where a key in presenter mode moves the page's scroll (its top, in px), or null for a key that does not.
  const { cmd } = keyCommand(key, { presenter: true });
  const last = Math.max(0, height - client);
  const step = Math.round(client * PAGE_SHARE);
  const to = { next: top + step, prev: top - step, home: 0, end: last }[cmd];
  return to === undefined ? null : Math.max(0, Math.min(last, to));
}

function scroller(el) {
  // The nearest box that scrolls the page (Streamlit's main area), or the document's; out of the component's
  // shadow root too.
  const up = (node) => node.parentElement || (node.getRootNode() instanceof ShadowRoot ? node.getRootNode().host : null);
  for (let node = up(el); node; node = up(node)) {
    const { overflowY } = getComputedStyle(node);
    if ((overflowY === 'auto' || overflowY === 'scroll') && node.scrollHeight > node.clientHeight) return node;
  }
  return document.scrollingElement;
}

export default function (component) {
  const { parentElement, setTriggerValue } = component;
  const data = typeof component.data === 'string' ? JSON.parse(component.data) : component.data;
  const on = !!(data && data.presenter);
  if (parentElement.__flowPageKeys) parentElement.__flowPageKeys.destroy();
  const handle = (e) => {
    const asked = presenterKey(e.key, on);
    if (asked !== null) {
      e.preventDefault();
      setTriggerValue('presenter', asked);
      return true;
    }
    const box = on ? scroller(parentElement) : null;
    const to = box ? pageTop(e.key, { top: box.scrollTop, height: box.scrollHeight, client: box.clientHeight }) : null;
    if (to === null) return false;
    e.preventDefault();
    box.scrollTo({ top: to });
    return true;
  };
  const router = new KeyRouter({ viewer: () => parentElement, slider: null, handle });
  parentElement.__flowPageKeys = router;
  // Listening, and in which mode: for a test (or a page's own script) to know a key press will be heard.
  document.documentElement.dataset.pageKeys = on ? 'presenter' : 'normal';
  return () => {
    router.destroy();
    delete parentElement.__flowPageKeys;
    delete document.documentElement.dataset.pageKeys;
  };
}
