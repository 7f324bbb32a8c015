# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh: helpers the benchmarks share (sourced).

cpu_ns() { # on-CPU time of a process and its threads, ns (schedstat)
  local pid=$1 total=0
  for t in /proc/"$pid"/task/*/schedstat; do
    read -r ns _ < "$t" && total=$((total + ns))
  done
  echo "$total"
}
