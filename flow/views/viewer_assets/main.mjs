// The viewer's entry, the module flow/views/viewer.py builds from these files (flow/views/js_modules.py joins them
// into one): mountViewer for the self-contained HTML export, followRoom for a room's follower page, and the default
// export for the Streamlit host.

import { followRoom } from './follow.mjs';
import { mountViewer } from './viewer.mjs';

export { followRoom, mountViewer };

// The Streamlit host (st.components.v2): data = {bundle, start, options: {questions, captions, presenter, room}}, as
// an object or as its JSON text.
// The position goes back as state "hop": {trace: the bundle's trace digest, hop: 1-based position},
// so a late report about a trace the page no longer shows can be told apart; a room this tab presented before
// a reload goes back as state "room": {code, key} (room.mjs), for the page to take back; presenter mode turned on
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
