# lopper's trace shim for Python generators (docs/generators.md), imported by the
# sitecustomize.py beside it before the generator's own code when lopper asks for a trace.
# It wraps the `random` module's functions and the methods of `random.Random` (and so of
# every instance a library makes) and, following the environment:
#   LOPPER_TRACE_MODE=record  runs them as usual and records each call;
#   LOPPER_TRACE_MODE=replay  answers each call from the trace in LOPPER_TRACE_IN, aligned
#                             by call stack (LOPPER_TRACE_ALIGN = halt | re-align), and
#                             records what it answered.
# The record goes to LOPPER_TRACE_OUT as JSON lines; LOPPER_TRACE_REPORT gets one JSON
# object saying how the replay went. Child processes are left alone.
import os
import sys

_MODE = os.environ.get("LOPPER_TRACE_MODE")

if _MODE in ("record", "replay") and not os.environ.get("LOPPER_TRACE_ACTIVE"):
    os.environ["LOPPER_TRACE_ACTIVE"] = "1"
    import array
    import atexit
    import base64
    import bisect
    import gc
    import json
    import random as _random

    _R = _random.Random
    # The calls made, as runs: consecutive calls of one API with one argument shape from one
    # stack list (a loop's calls), [name, shape, stack, [value, ...]]; written one line a run.
    _runs = []
    _cur = [None]  # the run the last call went into
    _closed = [0]  # calls in the runs before it
    _depth = [0]  # > 0 while inside a wrapped call: nested calls are the original's business
    _next_inv = [0]
    _skip = {os.path.abspath(_random.__file__), os.path.abspath(__file__)}
    _halt_code = 86

    _names = {}  # co_filename -> its base name, or None for random.py and this file

    def _file_name(filename):
        n = _names.get(filename, False)
        if n is False:
            n = None if os.path.abspath(filename) in _skip else os.path.basename(filename)
            _names[filename] = n
        return n

    # The last call's stack, outermost first: (frame, [invocation, "file:line"], file name)
    # per frame; each of those frames' position in it, by id; and the list the last call
    # returned.
    _last = []
    _last_pos = {}
    _last_result = [None]
    # "file:line" of a frame at an instruction, by (code, f_lasti): a frame's f_lineno is
    # worked out from its line table at every read (0.6 µs), its f_lasti is not.
    _site_of = {}

    def _site(fr, n):
        key = (fr.f_code, fr.f_lasti)
        s = _site_of.get(key)
        if s is None:
            s = _site_of[key] = "%s:%d" % (n, fr.f_lineno)
        return s

    def _stack(f):
        """The call stack from frame f (the wrapper's caller) out, without random.py and this
        file, outermost first: [[invocation, "file:line"], ...].

        Walks only up to the innermost frame the last call's stack shares: a frame that has
        not returned keeps its callers, and they are still at the same lines. A call from the
        same frame and line as the last one gets the last one's list itself (a loop drawing
        thousands of choices builds no new lists, and the trace encodes each list once), and
        frames whose line has not changed keep their [invocation, "file:line"] lists."""
        global _last, _last_pos
        inner = []
        k = -1
        names = _names
        while f is not None:
            fn = f.f_code.co_filename
            n = names.get(fn, False)
            if n is False:
                n = _file_name(fn)
            if n is not None:
                p = _last_pos.get(id(f))
                if p is not None and _last[p][0] is f:
                    k = p
                    break
                inner.append((f, n))
            f = f.f_back
        new = []
        if k >= 0:
            # The shared frame may have moved to another line; its callers have not.
            fr, pair, n = _last[k]
            site = _site(fr, n)
            if site == pair[1]:
                if not inner and k == len(_last) - 1:
                    return _last_result[0]
                new = _last[: k + 1]
            else:
                new = _last[:k]
                new.append((fr, [pair[0], site], n))
        for e in _last[k + 1 :]:
            del _last_pos[id(e[0])]
        for fr, n in reversed(inner):
            _next_inv[0] += 1
            _last_pos[id(fr)] = len(new)
            new.append((fr, [_next_inv[0], _site(fr, n)], n))
        _last = new
        _last_result[0] = [e[1] for e in new]
        return _last_result[0]

    # Per API: (shape of the arguments, the original's answer as a JSON value, whether a value
    # fits this call, the smallest value, the largest value, the result for a value).
    def _norm_range(start, stop=None, step=1):
        if stop is None:
            start, stop = 0, start
        return range(start, stop, step)

    def _int(v):
        return isinstance(v, int) and not isinstance(v, bool)

    def _num(v):
        return isinstance(v, (int, float)) and not isinstance(v, bool)

    _APIS = {}

    def _api(name):
        def register(cls):
            _APIS[name] = cls
            return cls

        return register

    @_api("random")
    class _Random:
        def shape(self, a, k):
            return []

        def record(self, orig, me, a, k):
            v = orig(me, *a, **k)
            return v, v

        def fits(self, v, s):
            return isinstance(v, float) and 0.0 <= v < 1.0

        def low(self, s):
            return 0.0

        def high(self, s):
            return 0.9999999999999999

        def result(self, v, me, a, k):
            return v

        def fit(self, v, s):
            """An in-range value near v, for a trace value that no longer fits the call."""
            return self.low(s)

        def draw(self, rng, s):
            """A value as the original would draw it, from rng."""
            return rng.random()

    @_api("uniform")
    class _Uniform(_Random):
        def shape(self, a, k):
            return [a[0] if a else k["a"], a[1] if len(a) > 1 else k["b"]]

        def fits(self, v, s):
            return _num(v) and min(s) <= v <= max(s)

        def low(self, s):
            return s[0]

        def high(self, s):
            return s[1]

        def fit(self, v, s):
            return min(max(v, min(s)), max(s)) if _num(v) else self.low(s)

        def draw(self, rng, s):
            return rng.uniform(*s)

    @_api("gauss")
    class _Gauss(_Random):
        def shape(self, a, k):
            return [a[0] if a else k.get("mu", 0.0), a[1] if len(a) > 1 else k.get("sigma", 1.0)]

        def fits(self, v, s):
            return _num(v)

        def low(self, s):
            return s[0]

        def high(self, s):
            return s[0]

        def draw(self, rng, s):
            return rng.gauss(*s)

    _APIS["normalvariate"] = _Gauss

    @_api("randrange")
    class _Randrange(_Random):
        def shape(self, a, k):
            r = _norm_range(*a, **k)
            return [r.start, r.stop, r.step]

        def fits(self, v, s):
            return _int(v) and v in range(*s)

        def low(self, s):
            return range(*s)[0]

        def high(self, s):
            return range(*s)[-1]

        def fit(self, v, s):
            if not _int(v):
                return self.low(s)
            r = range(*s)
            i = min(max((v - r.start) // r.step, 0), len(r) - 1)
            return r[i]

        def draw(self, rng, s):
            return rng.randrange(*s)

    @_api("randint")
    class _Randint(_Randrange):
        def shape(self, a, k):
            return [a[0], a[1] + 1, 1]

    @_api("getrandbits")
    class _Getrandbits(_Random):
        def shape(self, a, k):
            return [a[0] if a else k["k"]]

        def fits(self, v, s):
            return _int(v) and 0 <= v < (1 << s[0])

        def low(self, s):
            return 0

        def high(self, s):
            return (1 << s[0]) - 1

        def fit(self, v, s):
            return v & self.high(s) if _int(v) and v >= 0 else 0

        def draw(self, rng, s):
            return rng.getrandbits(s[0])

    @_api("choice")
    class _Choice(_Random):
        # The value is the chosen index; the original chooses from range(n), which draws
        # exactly the random numbers it draws for the sequence itself.
        def shape(self, a, k):
            return [len(a[0])]

        def record(self, orig, me, a, k):
            i = orig(me, range(len(a[0])))
            return i, a[0][i]

        def fits(self, v, s):
            return _int(v) and 0 <= v < s[0]

        def low(self, s):
            if not s[0]:
                raise IndexError("empty sequence")
            return 0

        def high(self, s):
            return s[0] - 1

        def fit(self, v, s):
            # An index past a shortened sequence wraps round (not all to index 0, which would
            # make every out-of-range choice the same one).
            return v % s[0] if _int(v) and v >= 0 else self.low(s)

        def draw(self, rng, s):
            return rng.randrange(s[0])

        def result(self, v, me, a, k):
            return a[0][v]

    @_api("choices")
    class _Choices(_Choice):
        def shape(self, a, k):
            return [len(a[0]), k.get("k", 1)]

        def record(self, orig, me, a, k):
            idx = orig(me, range(len(a[0])), *a[1:], **k)
            return idx, [a[0][i] for i in idx]

        def fits(self, v, s):
            return isinstance(v, list) and len(v) == s[1] and all(_int(i) and 0 <= i < s[0] for i in v)

        def low(self, s):
            if not s[0] and s[1]:
                raise IndexError("empty population")
            return [0] * s[1]

        def high(self, s):
            return [s[0] - 1] * s[1]

        def fit(self, v, s):
            if isinstance(v, list) and len(v) == s[1] and all(_int(i) and i >= 0 for i in v):
                return [i % s[0] for i in v]
            return self.low(s)

        def draw(self, rng, s):
            return [rng.randrange(s[0]) for _ in range(s[1])]

        def result(self, v, me, a, k):
            return [a[0][i] for i in v]

    @_api("sample")
    class _Sample(_Choices):
        def shape(self, a, k):
            return [len(a[0]), a[1] if len(a) > 1 else k["k"]]

        def record(self, orig, me, a, k):
            idx = orig(me, range(len(a[0])), *a[1:], **k)
            return idx, [a[0][i] for i in idx]

        def fits(self, v, s):
            return isinstance(v, list) and len(v) == s[1] and len(set(v)) == len(v) and all(_int(i) and 0 <= i < s[0] for i in v)

        def low(self, s):
            if s[1] > s[0] or s[1] < 0:
                raise ValueError("sample larger than population")
            return list(range(s[1]))

        def high(self, s):
            return list(range(s[0] - s[1], s[0]))

        def fit(self, v, s):
            return self.low(s)

        def draw(self, rng, s):
            return rng.sample(range(s[0]), s[1])

    @_api("shuffle")
    class _Shuffle(_Random):
        def shape(self, a, k):
            return [len(a[0])]

        def record(self, orig, me, a, k):
            perm = list(range(len(a[0])))
            orig(me, perm)
            self.result(perm, me, a, k)
            return perm, None

        def fits(self, v, s):
            return isinstance(v, list) and all(_int(i) for i in v) and sorted(v) == list(range(s[0]))

        def low(self, s):
            return list(range(s[0]))

        def high(self, s):
            return list(range(s[0]))

        def draw(self, rng, s):
            perm = list(range(s[0]))
            rng.shuffle(perm)
            return perm

        def result(self, v, me, a, k):
            old = list(a[0])
            a[0][:] = [old[i] for i in v]
            return None

    # The trace to replay, as runs: a line with "values" is a run of calls, one with "value" a
    # run of one; each run a dict with its api, args, values, stack and call-site key.
    # _starts[r] is run r's first entry's position in the whole trace of _total entries.
    _trace_in = []
    _starts = []
    _total = 0
    _pos = [0]
    _misaligned = []
    _align = os.environ.get("LOPPER_TRACE_ALIGN", "re-align")
    if _MODE == "replay":
        # Thousands of small objects at once: without the cyclic collector running over them
        # again and again while they load, and kept out of its later passes, since they live
        # until the end anyway.
        gc.disable()
        try:
            with open(os.environ["LOPPER_TRACE_IN"]) as f:
                # One JSON array for the decoder's C loop, not a Python call per line.
                _trace_in = json.loads("[" + ",".join(line for line in f.read().splitlines() if line.strip()) + "]")
        finally:
            gc.enable()

    def _key(stack):
        return " ".join(site for _, site in stack)

    # A run of floats travels as base64 of little-endian doubles: JSON's float text costs
    # a third of a microsecond a value each way, half the record of a generator of coins.
    def _doubles(text):
        a = array.array("d", base64.b64decode(text))
        if sys.byteorder == "big":
            a.byteswap()
        return a.tolist()

    def _base64(floats):
        a = array.array("d", floats)
        if sys.byteorder == "big":
            a.byteswap()
        return base64.b64encode(a.tobytes()).decode("ascii")

    # re-align's search for the next entry of a call: the runs of each (API, call sites), in
    # order, and where each ends, so a misaligned call costs a bisection, not a scan.
    _positions = {}
    _lines, _trace_in = _trace_in, []
    for _e in _lines:
        if "f64" in _e:
            _e["values"] = _doubles(_e["f64"])
        elif "values" not in _e:
            _e["values"] = [_e.get("value")]
        if not _e["values"]:
            continue
        _e.setdefault("key", _key(_e["stack"]))  # each run's call sites, once
        _starts.append(_total)
        _total += len(_e["values"])
        _runs_of, _ends = _positions.setdefault((_e["api"], _e["key"]), ([], []))
        _runs_of.append(len(_trace_in))
        _ends.append(_total)
        _trace_in.append(_e)
    del _lines
    if _trace_in:
        gc.freeze()  # the trace lives until the end: out of the collector's later passes

    def _flush():
        path = os.environ.get("LOPPER_TRACE_OUT")
        if path:
            # One encoder for all lines (json.dumps with options builds a new one per call),
            # and each stack list and frame encoded once however many runs share it.
            encode = json.JSONEncoder(separators=(",", ":")).encode
            stacks = {}
            apis = {}

            def value(v):
                # What json writes for a finite float or a plain int, without its per-call cost.
                t = type(v)
                if t is int or (t is float and -1e308 < v < 1e308):
                    return repr(v)
                return encode(v)

            pairs = {}  # id of an [invocation, "file:line"] list -> its JSON
            sites = {}

            def stack_json(st):
                parts = []
                for pair in st:
                    pj = pairs.get(id(pair))
                    if pj is None:
                        sj = sites.get(pair[1])
                        if sj is None:
                            sj = sites[pair[1]] = encode(pair[1])
                        pj = pairs[id(pair)] = "[%d,%s]" % (pair[0], sj)
                    parts.append(pj)
                return "[" + ",".join(parts) + "]"

            def line(run):
                name, shape, st, vals = run
                js = stacks.get(id(st))
                if js is None:
                    # A recursive generator makes a new stack list at nearly every call, but
                    # its frames' [invocation, "file:line"] lists are shared: each encoded once.
                    js = stacks[id(st)] = stack_json(st)
                api = apis.get(name)
                if api is None:
                    api = apis[name] = encode(name)
                args = "[]" if not shape else encode(shape)
                if len(vals) == 1:
                    return '{"api":%s,"args":%s,"value":%s,"stack":%s}\n' % (api, args, value(vals[0]), js)
                # random() answers only floats in [0, 1); other APIs' values are checked.
                if name == "random" or all(type(v) is float and -1e308 < v < 1e308 for v in vals):
                    return '{"api":%s,"args":%s,"f64":"%s","stack":%s}\n' % (api, args, _base64(vals), js)
                return '{"api":%s,"args":%s,"values":%s,"stack":%s}\n' % (api, args, encode(vals), js)

            with open(path, "w") as f:
                f.writelines(line(r) for r in _runs)
        report = os.environ.get("LOPPER_TRACE_REPORT")
        if report:
            with open(report, "w") as f:
                json.dump({"consumed": _pos[0], "of": _total, "misaligned": _misaligned}, f)

    atexit.register(_flush)

    def _halt(at, why):
        sys.stderr.write("lopper-trace: halt at trace entry %d: %s\n" % (at, why))
        _misaligned.append(at)
        _flush()
        sys.stderr.flush()
        os._exit(_halt_code)

    def _note(name, shape, stack, value):
        """Records a call: into the current run if it continues it, else as a new run."""
        run = _cur[0]
        if run is not None and run[2] is stack and run[0] == name and run[1] == shape:
            run[3].append(value)
        else:
            if run is not None:
                _closed[0] += len(run[3])
            _cur[0] = [name, shape, stack, [value]]
            _runs.append(_cur[0])

    _fallbacks = {}  # call sites -> how many calls there got no trace entry
    _fallback_rng = _R(0)  # for the values of re-align's later fallbacks: deterministic
    _fwd = {}  # this run's invocation -> the trace's, for the entries consumed so far
    _back = {}  # the trace's invocation -> this run's
    # A loop's calls come from one stack list (see _stack): its key, and the trace stack it
    # last matched (whose invocations _fwd and _back then hold), are kept, not recomputed.
    _key_of = [None, None]
    _matched = [None, None]
    # The trace run of the last entry a call took: [its first position, its end, the run,
    # its index]; and whether the last call took one (rather than a fallback value).
    _trun = [0, 0, None, -1]
    _took = [False]

    def _matches(e, name, key, stack):
        """Whether trace run e can answer this call: the same API and call sites, and no
        frame of it already tied to another invocation (so that an entry from the next loop
        iteration never answers a call in this one)."""
        if e["api"] != name or e["key"] != key:
            return False
        if stack is _matched[0] and e["stack"] == _matched[1]:
            return True  # the same frames and invocations as the last match: tied already
        for (mine, _), (theirs, _) in zip(stack, e["stack"]):
            if _fwd.get(mine, theirs) != theirs or _back.get(theirs, mine) != mine:
                return False
        return True

    def _replayed(name, api, stack, shape):
        """The value for this call from the trace: aligned by call stack, else as _align says."""
        p = _pos[0]
        _took[0] = False
        made = _closed[0] + (len(_cur[0][3]) if _cur[0] is not None else 0)
        if made > 4 * _total + 1000:
            # Far more choices than the trace holds: a rejection loop fed the smallest value
            # forever (`while u == v`). Stop, whatever the alignment.
            _halt(p, "the generator made %d choices from a trace of %d (runaway)" % (made, _total))
        if _trun[0] <= p < _trun[1] and stack is _matched[0] and _trun[2]["api"] == name:
            # The next entry of the run the last match came from, for the same stack: it
            # matches (same API, call sites and ties), so none of that is looked at again.
            q, e = p, _trun[2]
        else:
            if stack is not _key_of[0]:
                _key_of[0], _key_of[1] = stack, _key(stack)
            key = _key_of[1]
            if p >= _total:
                r = -1
            elif p == _trun[1]:
                r = _trun[3] + 1  # aligned calls go through the trace in order
            else:
                r = bisect.bisect_right(_starts, p) - 1
            if r >= 0 and _matches(_trace_in[r], name, key, stack):
                q, e = p, _trace_in[r]
            elif _align == "halt":
                expected = _trace_in[r]["api"] if r >= 0 else "the end of the trace"
                _halt(p, "expected %s, the generator called %s at %s" % (expected, name, key))
            else:
                # re-align: resume at the next entry for this call; with none left, answer the
                # smallest value the first time these call sites get none, and after that a
                # value drawn as the generator would draw it (from a fixed seed), so that a
                # rejection loop (`while u == v: ...`) fed the smallest value every time ends.
                q = e = None
                runs, ends = _positions.get((name, key), ((), ()))
                for i in range(bisect.bisect_right(ends, p + 1), len(runs)):
                    r = runs[i]
                    if _matches(_trace_in[r], name, key, stack):
                        q, e = max(_starts[r], p + 1), _trace_in[r]
                        break
                _misaligned.append(p)
                if q is None:
                    n = _fallbacks.get(key, 0)
                    _fallbacks[key] = n + 1
                    return api.low(shape) if n == 0 else api.draw(_fallback_rng, shape)
            theirs_stack = e["stack"]
            if not (stack is _matched[0] and theirs_stack == _matched[1]):
                for (mine, _), (theirs, _) in zip(stack, theirs_stack):
                    _fwd[mine] = theirs
                    _back[theirs] = mine
                _matched[0], _matched[1] = stack, theirs_stack
            start = _starts[r]
            _trun[0], _trun[1], _trun[2], _trun[3] = start, start + len(e["values"]), e, r
        _pos[0] = q + 1
        _took[0] = True
        v = e["values"][q - _trun[0]]
        if isinstance(v, dict) and "lopper" in v:
            v = api.high(shape) if v["lopper"] == "high" else api.low(shape)
        return v if api.fits(v, shape) else api.fit(v, shape)

    _getframe = sys._getframe
    # The frame that made the last wrapped call, its instruction (f_lasti) and that call's
    # stack list: a call from the same frame and instruction has the same stack (the frame
    # has not returned, so neither have its callers), and _stack is not asked again.
    _hot = [None, -1, None]
    # While the last call was random() and went into the current run (and, replaying, took
    # an entry of a trace run of random()): its frame, instruction and the run's values. The
    # next random() from there continues both runs without the general wrapper.
    _fast = [None, -1, None]

    def _wrap(name, api):
        orig = getattr(_R, name)
        record = _MODE == "record"

        def call(self, f, a, k):
            """The call self.name(*a, **k) from frame f, recorded or replayed."""
            try:
                shape = api.shape(a, k)
            except Exception:
                return orig(self, *a, **k)
            _fast[0] = None
            _depth[0] += 1
            try:
                lasti = f.f_lasti
                if f is _hot[0] and lasti == _hot[1]:
                    stack = _hot[2]
                else:
                    stack = _stack(f)
                    _hot[0], _hot[1], _hot[2] = f, lasti, stack
                if record:
                    value, result = api.record(orig, self, a, k)
                    if name == "shuffle":
                        result = None
                else:
                    try:
                        range_ok = api.low(shape) is not None
                    except (IndexError, ValueError):
                        range_ok = False
                    if not range_ok:
                        return orig(self, *a, **k)  # raises as the original does (empty range or sequence)
                    value = _replayed(name, api, stack, shape)
                    result = api.result(value, self, a, k)
                _note(name, shape, stack, value)
                if name == "random" and (record or _took[0]):
                    _fast[0], _fast[1], _fast[2] = f, lasti, _cur[0][3]
                return result
            finally:
                _depth[0] -= 1

        def wrapper(self, *a, **k):
            if _depth[0]:
                return orig(self, *a, **k)
            return call(self, _getframe(1), a, k)

        wrapper.__name__ = name
        wrapper.__doc__ = orig.__doc__
        if name != "random":
            return wrapper
        # random() is most of a choice-heavy generator's calls (a coin per pair of nodes): its
        # calls in a row from one place skip the general wrapper.
        if record:

            def random(self):
                f = _getframe(1)
                if f is _fast[0] and f.f_lasti == _fast[1] and not _depth[0]:
                    v = orig(self)
                    _fast[2].append(v)
                    return v
                return orig(self) if _depth[0] else call(self, f, (), {})

        else:

            def random(self):
                f = _getframe(1)
                if f is _fast[0] and f.f_lasti == _fast[1] and not _depth[0]:
                    p = _pos[0]
                    if p < _trun[1]:
                        v = _trun[2]["values"][p - _trun[0]]
                        if type(v) is float and 0.0 <= v < 1.0:
                            _pos[0] = p + 1
                            _fast[2].append(v)
                            return v
                return orig(self) if _depth[0] else call(self, f, (), {})

        random.__doc__ = orig.__doc__
        return random

    for _name, _cls in _APIS.items():
        if hasattr(_R, _name):
            setattr(_R, _name, _wrap(_name, _cls()))
            # The module-level functions are bound methods of a hidden instance, bound at import.
            if hasattr(_random, "_inst") and hasattr(_random, _name):
                setattr(_random, _name, getattr(_random._inst, _name))
