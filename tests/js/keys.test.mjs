import assert from 'node:assert/strict';
import { test } from 'node:test';

import { OVERLAY_KEYS, STEP_KEYS, capturedBy, keyCommand, keysOf } from '../../flow/views/viewer_assets/keys.mjs';

test('a clicker\'s keys and the arrows step; Home and End go to the ends', () => {
  for (const key of ['ArrowRight', 'ArrowDown', 'PageDown', ' ']) assert.equal(keyCommand(key).cmd, 'next', key);
  for (const key of ['ArrowLeft', 'ArrowUp', 'PageUp']) assert.equal(keyCommand(key).cmd, 'prev', key);
  assert.equal(keyCommand('Home').cmd, 'home');
  assert.equal(keyCommand('End').cmd, 'end');
  assert.deepEqual([...STEP_KEYS].sort(), ['ArrowRight', 'ArrowDown', 'PageDown', ' ', 'ArrowLeft', 'ArrowUp', 'PageUp'].sort());
  assert.ok(OVERLAY_KEYS.includes('Escape') && OVERLAY_KEYS.includes('Enter') && STEP_KEYS.every((k) => OVERLAY_KEYS.includes(k)));
});

test('digits typed then Enter jump to that hop (1-based on screen, 0-based here); Backspace and Escape edit them', () => {
  let typed = '';
  for (const key of '12') typed = keyCommand(key, { typed }).typed;
  assert.equal(typed, '12');
  assert.deepEqual(keyCommand('Backspace', { typed }), { cmd: 'typed', typed: '1' });
  assert.deepEqual(keyCommand('Enter', { typed }), { cmd: 'jump', typed: '', to: 11 });
  assert.deepEqual(keyCommand('Escape', { typed }), { cmd: 'typed', typed: '' });
  assert.equal(keyCommand('7', { typed: '123456' }).typed, '234567'); // the last six digits
  assert.equal(keyCommand('Enter').cmd, null); // nothing typed: Enter is not the viewer's
  assert.equal(keyCommand('Backspace').cmd, null);
});

test('P and F toggle presenter mode and full screen; Escape leaves presenter mode, but not from full screen', () => {
  assert.equal(keyCommand('p').cmd, 'presenter');
  assert.equal(keyCommand('F').cmd, 'fullscreen');
  assert.equal(keyCommand('Escape', { presenter: true }).cmd, 'leave-presenter');
  assert.equal(keyCommand('Escape', { presenter: true, fullscreen: true }).cmd, null);
  assert.equal(keyCommand('Escape').cmd, null);
  assert.equal(keyCommand('x').cmd, null);
});

function element(tagName, { type, role, expanded, editable = false } = {}) {
  const attrs = { role, 'aria-expanded': expanded };
  return { tagName, type, isContentEditable: editable, getAttribute: (name) => attrs[name] ?? null };
}

test('whose a key is: the viewer\'s, a field\'s, a control the mouse just clicked, or a closed list\'s', () => {
  const inside = element('BUTTON');
  const viewer = { contains: (node) => node === inside };
  const slider = element('INPUT', { type: 'range' });
  const whose = (target, pointed = true) => keysOf(target, { viewer, slider, pointed });
  assert.equal(whose(null), 'viewer');
  assert.equal(whose(slider), 'viewer');
  assert.equal(whose(inside), 'viewer');
  assert.equal(whose(element('DIV')), 'viewer');
  assert.equal(whose(element('TEXTAREA')), 'field');
  assert.equal(whose(element('DIV', { editable: true })), 'field');
  assert.equal(whose(element('INPUT', { type: 'text' })), 'field');
  assert.equal(whose(element('INPUT', { type: 'radio' })), 'clicked');
  assert.equal(whose(element('INPUT', { type: 'radio' }), false), 'field'); // reached with Tab: a keyboard user's
  assert.equal(whose(element('INPUT', { role: 'combobox', expanded: 'false' })), 'list');
  assert.equal(whose(element('INPUT', { role: 'combobox', expanded: 'true' })), 'field');
});

test('the viewer takes a key first after a click outside it, and only the stepping keys after a closed list', () => {
  assert.ok(capturedBy('clicked', 'a'));
  assert.ok(capturedBy('list', 'PageDown'));
  assert.ok(!capturedBy('list', 'a')); // the list searches with letters
  assert.ok(!capturedBy('viewer', 'ArrowRight')); // the viewer's own listener has it
  assert.ok(!capturedBy('field', 'ArrowRight'));
});
