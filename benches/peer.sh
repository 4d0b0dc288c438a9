# Sourced by benches/run_cvise.sh and benches/run_treereduce.sh: one peer reducer's run on
# one corpus case, and its row.
#
# peer_run CORPUS OUT BUDGET CASE WORK RESULT LOG CMD...
#   runs CMD in WORK (SIGINT at BUDGET seconds, output to WORK/LOG), then appends
#   `case exit-status wall-seconds final-tokens(count_tokens.py) passes-its-test` for the
#   file RESULT (relative to WORK) to OUT/status.txt.
peer_run() {
  local corpus=$1 out=$2 budget=$3 case=$4 work=$5 result=$6 log=$7
  shift 7
  local start rc wall tokens passes
  start=$(date +%s.%N)
  set +e
  (cd "$work" && timeout -s INT "$budget" "$@" > "$log" 2>&1)
  rc=$?
  set -e
  wall=$(python3 -c "import time; print(f'{time.time() - $start:.1f}')")
  tokens=$(python3 "$corpus/_tools/count_tokens.py" "$work/$result" | awk '{print $1}')
  if "$case/${TEST:-interesting.sh}" "$work/$result"; then passes=yes; else passes=no; fi
  echo "$(basename "$case") $rc $wall $tokens $passes" | tee -a "$out/status.txt"
}
