// A small bundle as flow.views.viewer.viewer_bundle makes them, for the viewer's node tests, and the committed JSON
// Schema every bundle is checked against (schema/viewer-bundle.schema.json, generated from
// flow.views.bundle_types). bundle.test.mjs checks that this one satisfies it, so the tests' idea of a bundle
// cannot drift from what Python sends.

import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';

export const SCHEMA = JSON.parse(readFileSync(new URL('../../schema/viewer-bundle.schema.json', import.meta.url), 'utf8'));

export function bundleErrors(bundle) {
  // The schema's complaints about `bundle` as one line each; [] for a bundle that satisfies it.
  const validate = new Ajv2020({ allErrors: true, strict: false }).compile(SCHEMA);
  return validate(bundle) ? [] : validate.errors.map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}

export const words = (zh, en = zh) => ({ zh, en });

const ACTORS = ['User', 'App', 'MCP Client', 'MCP Server', 'Tool', 'Model API'].map((name) => words(name));
const APP_PHASE = ['prepare', 'request', 'request', 'request', 'decision', 'execute', 'execute', 'execute', 'backfill', 'answer', 'answer'];
const ARTICLE_PHASE = [0, 1, 1, 1, 2, 3, 3, 3, 4, 4, 4];

export function hop(seq, { message = null, from = 1, to = 2, phase = 'request', ...more } = {}) {
  return {
    seq, number: String(seq), row: seq - 1, kind: 'mcp.request', phase, from: ACTORS[from], to: ACTORS[to],
    lanes: [from, to], label: `hop ${seq}`, teach: words(`teach ${seq}`), view: { payload: { n: seq } }, message, ...more,
  };
}

export function makeBundle(given) {
  const hops = structuredClone(given);
  // The ten messages and phase zero, each with the first of `hops` that is it.
  const messages = APP_PHASE.map((appPhase, n) => {
    const mine = hops.filter((h) => h.message === n);
    const first = hops.findIndex((h) => h.message === n);
    return {
      n, state: mine.length ? 'present' : 'missing', first: first < 0 ? null : first, hops: mine.length, visits: mine.length ? 1 : 0,
      article_phase: ARTICLE_PHASE[n], app_phase: appPhase, name: words(`message ${n}`), app_name: words(`step ${n}`),
      article_route: words('App → Model API'), reason: mine.length ? null : 'not_recorded',
      reason_short: mine.length ? null : words('not recorded'), reason_text: mine.length ? null : words('not in this recording'), corrected_article: null,
      caption: words(`caption ${n}`),
    };
  });
  const phases = Object.fromEntries(['prepare', 'request', 'decision', 'execute', 'backfill', 'answer'].map((p, k) => [p, { name: words(p), color: `#00000${k}` }]));
  return {
    version: 1,
    trace: '0123456789abcdef',
    lang: 'en',
    title: words('标题', 'title'),
    note: words(''),
    svg: null,
    svg_error: 'no drawing in a unit test',
    rows: hops.map((h) => `hop-${h.seq}`),
    row_styles: hops.map(() => 'request'),
    lanes: ACTORS,
    provider: { lanes: [], name: words('at the provider') },
    hops,
    phases,
    route: {
      messages,
      spans: {
        app: [['prepare', 0, 0], ['request', 1, 3], ['decision', 4, 4], ['execute', 5, 7], ['backfill', 8, 8], ['answer', 9, 10]],
        article: [[0, 0, 0], [1, 1, 3], [2, 4, 4], [3, 5, 7], [4, 8, 10]],
      },
      article_phases: Object.fromEntries([0, 1, 2, 3, 4].map((k) => [String(k), { name: words(`phase ${k}`), short: words(`${k}`) }])),
    },
    ui: { route_visits: words('{n} 次', '{n} visits'), room_votes: words('{n} 票', '{n} votes') },
    choice_keys: 'abcde',
    closing: null,
  };
}

export const QUESTION = { ask: words('which?'), choices: [words('one'), words('two'), words('three')], answer: 2, why: null };

// Four hops: the user's question (message 1), two frames of message 2 (one of them asking a question), and a wire
// frame outside the ten messages.
export const HOPS = [
  hop(1, { message: 1, from: 0, to: 1 }),
  hop(2, { message: 2, from: 2, to: 3, question: QUESTION }),
  hop(3, { message: 2, from: 3, to: 2, kind: 'mcp.response' }),
  hop(4, { message: null, from: 2, to: 3, kind: 'mcp.notification', phase: null }),
];
