#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# floor_profile.sh: where pmutop's CPU time per tick goes beside the floor's (bench/floor.c: the
# same per-CPU groups of the sw mode and the same /proc/stat read, no output). The floor and
# pmutop's batch writers run at the same time, each under `perf record -e cpu-clock`; per
# process it prints the samples in the kernel and in user space, both divided by the floor's
# samples in all (so kernel + user = the ratio floor.sh measures), and the user-space functions
# that take the most, in the same unit. Shows what of pmutop/floor is the kernel's (the same
# reads plus the output's write) and what is pmutop's own code. Then, per process, the kernel
# functions where pmutop's samples exceed the floor's the most: whether pmutop's kernel part is
# more work or the same work run slower (the reads' IPI waits, with caches that user space left).
# usage: bench/floor_profile.sh [SECONDS [INTERVAL_MS [FORMATS [TOP]]]]   defaults: 30, 10, "csv json openmetrics", 8
#   PMUTOP_BINS="before=PATH after=PATH"   several binaries in the same run
#   BENCH_AWAKE=1   an idle-class busy loop on every CPU, so no CPU halts (see bench/lib.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh # (the working directory is the repository)
secs=${1:-30}
ms=${2:-10}
formats=${3:-"csv json openmetrics"}
top=${4:-8}
bins=${PMUTOP_BINS:-"pmutop=./build/pmutop"}
bench_min_secs "$secs"
bench_need perf "perf is not installed"
bench_first_bin "$bins" >/dev/null
cmake --build build --target bench_floor >/dev/null
tmp=$(mktemp -d)
trap 'bench_awake_stop; rm -rf "$tmp"' EXIT
ticks=$(((secs + 2) * 1000 / ms))
hz=10000 # samples a second while on CPU: more would add the sampling's own cost to every tick

# Every process starts first; its recording begins 1 s later and ends 1 s before the process
# does (as floor.sh's schedstat samples): start-up and exit are not in the profile.
bench_awake_start
bench_start_batch "$ms" "$ticks" "$bins" "$formats"
pids=("${BENCH_PIDS[@]}")
names=("${BENCH_NAMES[@]// /-}")
sleep 1
recs=()
for i in "${!pids[@]}"; do
  perf record -q -e cpu-clock -F "$hz" -p "${pids[i]}" -o "$tmp/${names[i]}.data" -- \
    sleep "$((secs - 2))" >/dev/null 2>"$tmp/${names[i]}.err" &
  recs+=($!)
done
wait "${pids[@]}" "${recs[@]}" || true # (not the busy loops of BENCH_AWAKE)
for name in "${names[@]}"; do
  [ -s "$tmp/$name.data" ] || { echo "perf record of $name failed: $(cat "$tmp/$name.err")" >&2; exit 1; }
done

samples() { # NAME: "DSO SAMPLES" lines of a recording
  perf report -i "$tmp/$1.data" --stdio -q -g none --sort dso -F sample,dso 2>/dev/null |
    awk 'NF >= 2 { print $2, $1 }'
}

floor_all=$(samples floor | awk '{ s += $2 } END { print s + 0 }')
[ "$floor_all" -gt 0 ] || { echo "the floor's recording has no samples" >&2; exit 1; }
echo "CPU time per tick beside the floor: $(nproc) CPUs, ${ms} ms, $((secs - 2)) s recorded, perf record -e cpu-clock" \
  "-F $hz; load $(cut -d' ' -f1-3 /proc/loadavg); the floor: $floor_all samples"
echo "  (each figure is samples / the floor's samples in all: kernel + user = pmutop/floor)"
for name in "${names[@]}"; do
  samples "$name" | awk -v n="$name" -v f="$floor_all" '
    $1 == "[kernel.kallsyms]" { k += $2; next } { u += $2 }
    END { printf "%-24s kernel %5.2f  user %5.2f  all %5.2f\n", n, k / f, u / f, (k + u) / f }'
done
for name in "${names[@]:1}"; do
  echo "$name: the user-space functions that take the most (same unit)"
  perf report -i "$tmp/$name.data" --stdio -q -g none --sort dso,sym -F sample,dso,sym 2>/dev/null |
    sort -k1,1nr | awk -v f="$floor_all" -v top="$top" '$2 != "[kernel.kallsyms]" && NF >= 4 && shown < top {
      printf "    %5.3f  %s %s\n", $1 / f, $2, $4; shown++ }'
done
ksyms() { # NAME: "SYMBOL SAMPLES" lines of a recording's kernel functions
  perf report -i "$tmp/$1.data" --stdio -q -g none --sort dso,sym -F sample,dso,sym 2>/dev/null |
    awk '$2 == "[kernel.kallsyms]" && NF >= 4 { print $4, $1 }'
}
ksyms floor >"$tmp/floor.k"
for name in "${names[@]:1}"; do
  echo "$name: the kernel functions it spends more in than the floor (pmutop - floor, same unit)"
  ksyms "$name" | awk -v f="$floor_all" -v top="$top" '
    FNR == NR { fl[$1] = $2; next } { d = $2 - fl[$1]; if (d > 0) printf "%d %s %d %d\n", d, $1, $2, fl[$1] }' \
    "$tmp/floor.k" - | sort -k1,1nr | awk -v f="$floor_all" -v top="$top" 'NR <= top {
      printf "    %+5.3f  %s (%d against %d samples)\n", $1 / f, $2, $3, $4 }'
done
