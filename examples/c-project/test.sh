#!/bin/sh
# Interesting iff gcc, building the project tree ($1, also the working directory), rejects
# src/main.c with this exact diagnostic.
cd "$1" && LC_ALL=C gcc -Iinclude -c -o /dev/null src/main.c 2>&1 | grep -q "incompatible types when assigning to type 'int' from type 'struct item'"
