#!/bin/sh
# Interesting (exit 0) when networkx 2.8.8's eulerize() adds more edges than needed to the
# graph in $1 (eulerize.py). NX_OLD_PYTHON: a Python with networkx 2.8.8, e.g. a venv made by
#   python3 -m venv /tmp/nx28 && /tmp/nx28/bin/pip install networkx==2.8.8
exec "${NX_OLD_PYTHON:-python3}" "$(dirname "$0")/eulerize.py" "$1"
