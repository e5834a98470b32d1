#!/usr/bin/env bash
# Runs test programs, keeps their closing "name: N passed, M failed" lines in
# build/test-results.txt, and with --summary prints the total over the run.
set -u
log=build/test-results.txt
if [ "${1:-}" = "--summary" ]; then
  awk -F'[:,]' '/: [0-9]+ passed, [0-9]+ failed/ { split($2, a, " "); split($3, b, " "); p += a[1]; f += b[1] }
       END { printf "total: %d passed, %d failed\n", p, f; exit (f > 0) }' "$log"
  exit $?
fi
# RUN_TESTS_TIMEOUT=N (seconds): a program still running after N is stopped and
# counts as failed (gpu_check.sh sets it: a kernel that hangs must not take the
# whole device call)
rc=0
for t in "$@"; do
  t0=$(date +%s)
  if [ -n "${RUN_TESTS_TIMEOUT:-}" ]; then out=$(timeout "$RUN_TESTS_TIMEOUT" $t 2>&1); code=$?
  else out=$($t 2>&1); code=$?; fi
  [ $code -eq 124 ] && echo "$t: stopped after ${RUN_TESTS_TIMEOUT:-}s (RUN_TESTS_TIMEOUT)"
  printf '%s\n' "$out" | grep -v '^seed ' | tail -n 40
  # the first failures too: the tail of a long run can hide where it went wrong
  nf=$(printf '%s\n' "$out" | grep -c '^FAIL')
  if [ "$nf" -gt 0 ]; then
    echo "$t: first of $nf FAIL lines:"; printf '%s\n' "$out" | grep -m 30 '^FAIL'
    printf '%s\n' "$out" | grep '^seed ' | head -n 1
  fi
  line=$(printf '%s\n' "$out" | grep -E '[0-9]+ passed, [0-9]+ failed' | tail -n 1)
  case "$line" in *:*) ;; "") ;; *) line="$t: $line" ;; esac
  if [ $code -ne 0 ] || [ -z "$line" ]; then
    echo "$t: exited with $code"; rc=1
    [ -z "$line" ] && line="$t: 0 passed, 1 failed"
  fi
  echo "$line" >> "$log"
  echo "$t: $(( $(date +%s) - t0 )) s"
done
exit $rc
