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
  const traceIn = mode === 'replay'
    ? fs.readFileSync(process.env.LOPPER_TRACE_IN, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l))
    : [];
  let pos = 0;
  const misaligned = [];
  const HIGH = 0.9999999999999999;

  // The caller's stack, outermost first, without this file and Node's own frames.
  const stack = () => {
    const lines = (new Error().stack || '').split('\n').slice(1);
    const sites = [];
    for (const line of lines) {
      const m = /\(?([^\s()]+):(\d+):(\d+)\)?\s*$/.exec(line);
      if (!m || m[1] === __filename || m[1].startsWith('node:')) continue;
      sites.push([0, `${path.basename(m[1])}:${m[2]}:${m[3]}`]);
    }
    return sites.reverse();
  };
  const key = (st) => st.map((s) => s[1]).join(' ');

  const flush = () => {
    if (process.env.LOPPER_TRACE_OUT) {
      fs.writeFileSync(process.env.LOPPER_TRACE_OUT, out.map((e) => JSON.stringify(e) + '\n').join(''));
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
  const replayed = (st) => {
    const k = key(st);
    if (out.length > 4 * traceIn.length + 1000) {
      // A rejection loop fed the smallest value forever: stop, whatever the alignment.
      misaligned.push(pos);
      process.stderr.write(`lopper-trace: halt: ${out.length} choices from a trace of ${traceIn.length} (runaway)\n`);
      flush();
      process.exit(86);
    }
    const matches = (e) => e.api === 'random' && (e.key || key(e.stack)) === k;
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
      q = traceIn.findIndex((e, j) => j > pos && matches(e));
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
    const st = stack();
    const value = mode === 'record' ? original() : replayed(st);
    out.push({ api: 'random', args: [], value, stack: st });
    return value;
  };
}
