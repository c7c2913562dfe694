#!/usr/bin/env bash
# Job-by-job schedules of every built-in policy on real traces, this tree against another
# checkout (its own .venv and build): the simulate command's --out CSV compared byte for byte.
#
#   bench/schedules_against.sh OTHER_TREE [TRACES_DIR]
#
# Traces (the Parallel Workloads Archive's cleaned logs): CTC-SP2 at 430 and 338 processors,
# SDSC-SP2 at 128, KTH-SP2 at 100; policies fcfs, easy, conservative, backfill-k=1,
# backfill-k=4, fairshare and fairshare-cb (the fair-share ones on the first 10,000 jobs:
# their event loop is slow on whole traces), requested and accurate estimates.  Prints one line
# per run and a count; exits 1 if a schedule differs.  Figures only, no timing.
set -euo pipefail
other=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
traces=${2:-$here/../shared/data/traces}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
same=0; differ=0
for spec in CTC-SP2-1996-3.1-cln:430 CTC-SP2-1996-3.1-cln:338 SDSC-SP2-1998-4.2-cln:128 \
            KTH-SP2-1996-2.1-cln:100; do
  trace=${spec%%:*}; procs=${spec##*:}
  for policy in fcfs easy conservative backfill-k=1 backfill-k=4 fairshare fairshare-cb; do
    limit=(); case $policy in fairshare*) limit=(--limit 10000);; esac
    for est in requested accurate; do
      for side in this other; do
        tree=$here; [ "$side" = other ] && tree=$other
        (cd "$tree" && .venv/bin/python -m scheduler simulate "$traces/$trace.swf.gz" \
          --procs "$procs" --policy "$policy" --estimates "$est" "${limit[@]}" \
          --out "$work/$side.csv" >/dev/null)
      done
      if cmp -s "$work/this.csv" "$work/other.csv"; then
        same=$((same + 1)); verdict=identical
      else
        differ=$((differ + 1)); verdict=DIFFER
      fi
      echo "$trace@$procs $policy $est: $verdict"
    done
  done
done
echo "$same identical, $differ differ"
[ "$differ" -eq 0 ]
