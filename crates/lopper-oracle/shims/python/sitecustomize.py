# lopper's trace shim for Python generators (docs/generators.md).
#
# lopper puts this directory first on PYTHONPATH, so Python imports this file at start-up,
# before the generator's own code. It wraps the `random` module's functions and the methods
# of `random.Random` (and so of every instance a library makes) and, following the
# environment:
#   LOPPER_TRACE_MODE=record  runs them as usual and records each call;
#   LOPPER_TRACE_MODE=replay  answers each call from the trace in LOPPER_TRACE_IN, aligned
#                             by call stack (LOPPER_TRACE_ALIGN = halt | re-align), and
#                             records what it answered.
# The record goes to LOPPER_TRACE_OUT as JSON lines; LOPPER_TRACE_REPORT gets one JSON
# object saying how the replay went. Child processes are left alone.
import os
import sys

_MODE = os.environ.get("LOPPER_TRACE_MODE")
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]

if _MODE in ("record", "replay") and not os.environ.get("LOPPER_TRACE_ACTIVE"):
    os.environ["LOPPER_TRACE_ACTIVE"] = "1"
    import atexit
    import bisect
    import gc
    import json
    import random as _random

    _R = _random.Random
    _orig = {}
    _out = []  # recorded calls, as dicts
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

    # The last call's stack, outermost first: [frame, [invocation, "file:line"]] per frame;
    # each of those frames' position in it, by id; and the list the last call returned.
    _last = []
    _last_pos = {}
    _last_result = [None]

    def _stack():
        """The call stack outside random.py and this file, outermost first: [[invocation, "file:line"], ...].

        Walks only up to the innermost frame the last call's stack shares: a frame that has
        not returned keeps its callers, and they are still at the same lines. A call from the
        same frame and line as the last one gets the last one's list itself (a loop drawing
        thousands of choices builds no new lists, and the trace encodes each list once)."""
        global _last, _last_pos
        inner = []
        k = -1
        f = sys._getframe(2)
        while f is not None:
            n = _file_name(f.f_code.co_filename)
            if n is not None:
                p = _last_pos.get(id(f))
                if p is not None and _last[p][0] is f:
                    k = p
                    break
                inner.append((f, n))
            f = f.f_back
        if not inner and k == len(_last) - 1 and k >= 0:
            fr, (inv, site) = _last[k]
            line = "%s:%d" % (_file_name(fr.f_code.co_filename), fr.f_lineno)
            if line == site:
                return _last_result[0]
        for e in _last[k + 1:]:
            del _last_pos[id(e[0])]
        new = []
        if k >= 0:
            # The shared frame may have moved to another line; its callers have not.
            fr, (inv, _) = _last[k]
            new = _last[:k] + [(fr, [inv, "%s:%d" % (_file_name(fr.f_code.co_filename), fr.f_lineno)])]
        for fr, n in reversed(inner):
            _next_inv[0] += 1
            _last_pos[id(fr)] = len(new)
            new.append((fr, [_next_inv[0], "%s:%d" % (n, fr.f_lineno)]))
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

    _trace_in = []
    _pos = [0]
    _misaligned = []
    _align = os.environ.get("LOPPER_TRACE_ALIGN", "re-align")
    if _MODE == "replay":
        # Tens of thousands of small dicts at once: without the cyclic collector running
        # over them again and again while they load (3.5x faster on 80k entries), and kept
        # out of its later passes, since they live until the end anyway.
        gc.disable()
        try:
            with open(os.environ["LOPPER_TRACE_IN"]) as f:
                # One JSON array for the decoder's C loop, not a Python call per line.
                _trace_in = json.loads("[" + ",".join(line for line in f.read().splitlines() if line.strip()) + "]")
        finally:
            gc.enable()

    def _key(stack):
        return " ".join(site for _, site in stack)

    # re-align's search for the next entry of a call: each (API, call sites)'s positions,
    # in order, so a misaligned call costs a bisection, not a scan of the trace.
    _positions = {}
    for _j, _e in enumerate(_trace_in):
        # Each entry's call sites, once, not at every call that looks at it.
        _e.setdefault("key", _key(_e["stack"]))
        _positions.setdefault((_e["api"], _e["key"]), []).append(_j)
    if _trace_in:
        gc.freeze()  # the trace lives until the end: out of the collector's later passes

    def _flush():
        path = os.environ.get("LOPPER_TRACE_OUT")
        if path:
            # One encoder for all entries (json.dumps with options builds a new one per call),
            # and each stack list encoded once however many entries share it.
            encode = json.JSONEncoder(separators=(",", ":")).encode
            stacks = {}
            apis = {}

            def value(v):
                # What json writes for a finite float or a plain int, without its per-call cost.
                t = type(v)
                if t is int or (t is float and -1e308 < v < 1e308):
                    return repr(v)
                return encode(v)

            def line(e):
                st = e["stack"]
                js = stacks.get(id(st))
                if js is None:
                    js = stacks[id(st)] = encode(st)
                api = apis.get(e["api"])
                if api is None:
                    api = apis[e["api"]] = encode(e["api"])
                args = e["args"]
                return '{"api":%s,"args":%s,"value":%s,"stack":%s}\n' % (api, "[]" if not args else encode(args), value(e["value"]), js)

            with open(path, "w") as f:
                f.writelines(line(e) for e in _out)
        report = os.environ.get("LOPPER_TRACE_REPORT")
        if report:
            with open(report, "w") as f:
                json.dump({"consumed": _pos[0], "of": len(_trace_in), "misaligned": _misaligned}, f)

    atexit.register(_flush)

    def _halt(at, why):
        sys.stderr.write("lopper-trace: halt at trace entry %d: %s\n" % (at, why))
        _misaligned.append(at)
        _flush()
        sys.stderr.flush()
        os._exit(_halt_code)

    _fallbacks = {}  # call sites -> how many calls there got no trace entry
    _fallback_rng = _R(0)  # for the values of re-align's later fallbacks: deterministic
    _fwd = {}  # this run's invocation -> the trace's, for the entries consumed so far
    _back = {}  # the trace's invocation -> this run's
    # A loop's calls come from one stack list (see _stack): its key, and the trace stack it
    # last matched (whose invocations _fwd and _back then hold), are kept, not recomputed.
    _key_of = [None, None]
    _matched = [None, None]

    def _matches(e, name, key, stack):
        """Whether trace entry e can answer this call: the same API and call sites, and no
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
        if stack is not _key_of[0]:
            _key_of[0], _key_of[1] = stack, _key(stack)
        key = _key_of[1]
        p = _pos[0]
        if len(_out) > 4 * len(_trace_in) + 1000:
            # Far more choices than the trace holds: a rejection loop fed the smallest value
            # forever (`while u == v`). Stop, whatever the alignment.
            _halt(p, "the generator made %d choices from a trace of %d (runaway)" % (len(_out), len(_trace_in)))
        if p < len(_trace_in) and _matches(_trace_in[p], name, key, stack):
            q = p
        elif _align == "halt":
            expected = _trace_in[p]["api"] if p < len(_trace_in) else "the end of the trace"
            _halt(p, "expected %s, the generator called %s at %s" % (expected, name, key))
        else:
            # re-align: resume at the next entry for this call; with none left, answer the
            # smallest value the first time these call sites get none, and after that a value
            # drawn as the generator would draw it (from a fixed seed), so that a rejection
            # loop (`while u == v: ...`) fed the smallest value every time still ends.
            ps = _positions.get((name, key), ())
            q = next((ps[i] for i in range(bisect.bisect_right(ps, p), len(ps)) if _matches(_trace_in[ps[i]], name, key, stack)), None)
            _misaligned.append(p)
            if q is None:
                n = _fallbacks.get(key, 0)
                _fallbacks[key] = n + 1
                return api.low(shape) if n == 0 else api.draw(_fallback_rng, shape)
        theirs_stack = _trace_in[q]["stack"]
        if not (stack is _matched[0] and theirs_stack == _matched[1]):
            for (mine, _), (theirs, _) in zip(stack, theirs_stack):
                _fwd[mine] = theirs
                _back[theirs] = mine
            _matched[0], _matched[1] = stack, theirs_stack
        _pos[0] = q + 1
        v = _trace_in[q].get("value")
        if isinstance(v, dict) and "lopper" in v:
            v = api.high(shape) if v["lopper"] == "high" else api.low(shape)
        return v if api.fits(v, shape) else api.fit(v, shape)

    def _wrap(name, api):
        orig = getattr(_R, name)

        def wrapper(self, *a, **k):
            if _depth[0]:
                return orig(self, *a, **k)
            try:
                shape = api.shape(a, k)
            except Exception:
                return orig(self, *a, **k)
            _depth[0] += 1
            try:
                stack = _stack()
                if _MODE == "record":
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
                _out.append({"api": name, "args": shape, "value": value, "stack": stack})
                return result
            finally:
                _depth[0] -= 1

        wrapper.__name__ = name
        wrapper.__doc__ = orig.__doc__
        return wrapper

    for _name, _cls in _APIS.items():
        if hasattr(_R, _name):
            _orig[_name] = getattr(_R, _name)
            setattr(_R, _name, _wrap(_name, _cls()))
            # The module-level functions are bound methods of a hidden instance, bound at import.
            if hasattr(_random, "_inst") and hasattr(_random, _name):
                setattr(_random, _name, getattr(_random._inst, _name))
