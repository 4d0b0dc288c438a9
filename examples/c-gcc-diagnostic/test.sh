#!/bin/sh
# Interesting iff gcc rejects the candidate ($1) with this exact diagnostic.
LC_ALL=C gcc -c -o /dev/null "$1" 2>&1 | grep -q "incompatible types when assigning to type 'int' from type 'struct item'"
