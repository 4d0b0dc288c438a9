# lopper's trace shim for Python generators (docs/generators.md): the part Python imports at
# start-up. lopper puts this directory first on PYTHONPATH; when it asks for a trace, this
# imports the shim itself (_lopper_trace.py, beside it), with its bytecode cached here even
# under PYTHONDONTWRITEBYTECODE: this directory is lopper's own, and compiling the shim
# would cost every generator run about 6 ms. Then the directory leaves sys.path, so the
# generator sees the path it would see without lopper.
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
if os.environ.get("LOPPER_TRACE_MODE") in ("record", "replay") and not os.environ.get("LOPPER_TRACE_ACTIVE"):
    _keep = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        import _lopper_trace  # noqa: F401  (it installs itself)
    finally:
        sys.dont_write_bytecode = _keep
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
