#!/usr/bin/env bash
# The long fuzzing budget of crates/lopper-reduce/tests/fuzz_front_ends.rs (CI runs 300
# cases per property in a debug build): mutated pest grammars, tree-sitter grammar.json
# files and programs in every built-in language, in a release build.
#
# Usage: benches/fuzz.sh [CASES]   (default 20000 per property; prints the time taken)
#   SEED   environment: the proptest seed (default: random; the test suite uses 0)
#   LIMIT  environment: seconds a case may take before it counts as a hang (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-20000}
start=$(date +%s)
LOPPER_FUZZ_SEED=${SEED:-random} LOPPER_FUZZ_LIMIT=${LIMIT:-60} LOPPER_FUZZ_CASES=$cases cargo test --release -p lopper-reduce --test fuzz_front_ends -- --test-threads 2
echo "fuzz: $cases cases per property, $(( $(date +%s) - start )) s"
