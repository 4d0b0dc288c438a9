// lopper's trace shim for Node.js generators (docs/generators.md): the same protocol as the
// Python shim, for Math.random. lopper loads it with NODE_OPTIONS=--require, before the
// generator's code. Node gives no frame identity, so every frame's invocation is 0: entries
// align by API and call sites (file:line:column) alone.
'use strict';
const fs = require('fs');
const path = require('path');

const mode = process.env.LOPPER_TRACE_MODE;
if ((mode === 'record' || mode === 'replay') && !process.env.LOPPER_TRACE_ACTIVE) {
  process.env.LOPPER_TRACE_ACTIVE = '1';
  const original = Math.random;
  const out = [];
  const align = process.env.LOPPER_TRACE_ALIGN || 're-align';
  // A line is one choice (`value`) or a run of them (`values`, or `f64`: base64 of
  // little-endian doubles); the replay works on single choices.
  const doubles = (b64) => {
    const bytes = Buffer.from(b64, 'base64');
    const xs = [];
    for (let i = 0; i + 8 <= bytes.length; i += 8) xs.push(bytes.readDoubleLE(i));
    return xs;
  };
  const choicesOf = (e) => {
    if (e.f64 === undefined && e.values === undefined) return [e];
    const values = e.f64 !== undefined ? doubles(e.f64) : e.values;
    return values.map((value) => ({ api: e.api, args: e.args, value, stack: e.stack }));
  };
  const traceIn = mode === 'replay'
    ? fs.readFileSync(process.env.LOPPER_TRACE_IN, 'utf8').split('\n').filter((l) => l.trim()).flatMap((l) => choicesOf(JSON.parse(l)))
    : [];
  const key = (st) => st.map((s) => s[1]).join(' ');
  // Each entry's call-site key once, not at every comparison.
  for (const e of traceIn) e.key = e.key || key(e.stack || []);
  // re-align's search for the next entry of a call: each key's positions, in order.
  const positions = new Map();
  traceIn.forEach((e, j) => {
    if (e.api !== 'random') return;
    if (!positions.has(e.key)) positions.set(e.key, []);
    positions.get(e.key).push(j);
  });
  // The first position after `at` in the ascending list `ps`, or -1.
  const after = (ps, at) => {
    let lo = 0, hi = ps.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ps[mid] <= at) lo = mid + 1; else hi = mid;
    }
    return lo < ps.length ? ps[lo] : -1;
  };
  let pos = 0;
  const misaligned = [];
  const HIGH = 0.9999999999999999;

  // The caller's stack as its key (call sites outermost first, without this file and
  // Node's own frames). V8's call-site objects, not the formatted `stack` string: no text
  // to build and parse again. Each distinct stack's JSON is made once, when first seen.
  const names = new Map();
  const stackJson = new Map();
  const asSites = (_, callSites) => callSites;
  const stackKey = (above) => {
    const saved = Error.prepareStackTrace;
    Error.prepareStackTrace = asSites;
    const holder = {};
    Error.captureStackTrace(holder, above);
    const callSites = holder.stack;
    Error.prepareStackTrace = saved;
    const sites = [];
    for (let i = callSites.length - 1; i >= 0; i--) {
      const c = callSites[i];
      const file = c.getFileName();
      if (!file || file === __filename || file.startsWith('node:')) continue;
      let name = names.get(file);
      if (name === undefined) {
        name = path.basename(file);
        names.set(file, name);
      }
      sites.push(`${name}:${c.getLineNumber()}:${c.getColumnNumber()}`);
    }
    const k = sites.join(' ');
    if (!stackJson.has(k)) stackJson.set(k, JSON.stringify(sites.map((s) => [0, s])));
    return k;
  };

  // One trace line, as JSON.stringify({api, args, value, stack}) writes it.
  const line = (e) => `{"api":"random","args":[],"value":${JSON.stringify(e.value)},"stack":${stackJson.get(e.key)}}\n`;
  const flush = () => {
    if (process.env.LOPPER_TRACE_OUT) {
      fs.writeFileSync(process.env.LOPPER_TRACE_OUT, out.map(line).join(''));
    }
    if (process.env.LOPPER_TRACE_REPORT) {
      fs.writeFileSync(process.env.LOPPER_TRACE_REPORT, JSON.stringify({ consumed: pos, of: traceIn.length, misaligned }));
    }
  };
  process.on('exit', flush);

  const fits = (v) => typeof v === 'number' && v >= 0 && v < 1;
  // re-align's later fallbacks at the same call sites draw from a fixed-seed generator
  // (mulberry32), so a rejection loop fed 0 every time still ends; the first gets 0.
  const fallbacks = new Map();
  let seed = 0;
  const draw = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const replayed = (k) => {
    if (out.length > 4 * traceIn.length + 1000) {
      // A rejection loop fed the smallest value forever: stop, whatever the alignment.
      misaligned.push(pos);
      process.stderr.write(`lopper-trace: halt: ${out.length} choices from a trace of ${traceIn.length} (runaway)\n`);
      flush();
      process.exit(86);
    }
    const matches = (e) => e.api === 'random' && e.key === k;
    let q;
    if (pos < traceIn.length && matches(traceIn[pos])) {
      q = pos;
    } else if (align === 'halt') {
      misaligned.push(pos);
      process.stderr.write(`lopper-trace: halt at trace entry ${pos}: the generator called random at ${k}\n`);
      flush();
      process.exit(86);
    } else {
      misaligned.push(pos);
      q = after(positions.get(k) || [], pos);
      if (q < 0) {
        const n = fallbacks.get(k) || 0;
        fallbacks.set(k, n + 1);
        return n === 0 ? 0 : draw();
      }
    }
    pos = q + 1;
    let v = traceIn[q].value;
    if (v && typeof v === 'object' && 'lopper' in v) v = v.lopper === 'high' ? HIGH : 0;
    return fits(v) ? v : 0;
  };

  Math.random = function random() {
    const k = stackKey(random);
    const value = mode === 'record' ? original() : replayed(k);
    out.push({ value, key: k });
    return value;
  };
}
