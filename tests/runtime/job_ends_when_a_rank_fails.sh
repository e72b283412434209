#!/usr/bin/env bash
# A rank that dies, or one that stops answering, must end the whole job with a non-zero status, well before
# a generous outer limit: never a hang. Usage: job_ends_when_a_rank_fails.sh MPIRUN PROBE
set -u
mpirun="$1"
probe="$2"
limit=60
for mode in exit hang; do
  start=$(date +%s)
  timeout "$limit" "$mpirun" --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1 -np 4 "$probe" "$mode" 2000 > /dev/null 2>&1
  status=$?
  elapsed=$(( $(date +%s) - start ))
  if [ "$status" -eq 124 ]; then
    echo "FAIL: with a rank that does '$mode', the job was still running after ${limit} s"
    exit 1
  fi
  if [ "$status" -eq 0 ]; then
    echo "FAIL: with a rank that does '$mode', the job exited 0"
    exit 1
  fi
  echo "ok: a rank that does '$mode' ended the job with status $status after ${elapsed} s"
done
