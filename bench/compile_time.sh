#!/usr/bin/env bash
# Compile-time benchmark (c): how long g++ takes for one staticflow graph of N nodes versus the
# same expression written with xtensor. Run from the repository root:
#
#   bash bench/compile_time.sh            # N = 10 50 200, best of 3 compiles each
#   REPEAT=5 bash bench/compile_time.sh 10 100
#   GRADIENT=1 bash bench/compile_time.sh 5 10 # also: the gradient function against the forward
#   PROBE_DEPTH=1 bash bench/compile_time.sh   # also: the largest N each library compiles with
#                                              # g++'s default -ftemplate-depth (900)
#
# Environment: CXX (default g++), REPEAT (default 3), TEMPLATE_DEPTH (default 4096),
# CXXFLAGS_EXTRA (appended to the flags), PROBE_DEPTH (0/1), STATICFLOW_INCLUDE (the include
# directory to measure, default: include of this checkout).
# Each TU is compiled with
#   $CXX -std=c++20 -O2 -march=native -DXTENSOR_USE_XSIMD -ftemplate-depth=$TEMPLATE_DEPTH -I include -c
# (ccache is disabled). The raised template depth is applied to both libraries alike: with g++'s
# default of 900 neither compiles a 200-node chain (see PROBE_DEPTH). The table reports, for each TU, the fastest of the REPEAT wall-clock times
# and the fastest of the REPEAT CPU (user + system) times; ratio = staticflow / xtensor. Row 0 is a
# TU that only includes the headers. Prints a markdown table on stdout.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"

CXX="${CXX:-g++}"
REPEAT="${REPEAT:-3}"
TEMPLATE_DEPTH="${TEMPLATE_DEPTH:-4096}"
PROBE_DEPTH="${PROBE_DEPTH:-0}"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10 50 200)
STATICFLOW_INCLUDE="${STATICFLOW_INCLUDE:-include}"
base_flags=(-std=c++20 -O2 -march=native -DXTENSOR_USE_XSIMD -I "$STATICFLOW_INCLUDE" ${CXXFLAGS_EXTRA:-})
flags=("${base_flags[@]}" "-ftemplate-depth=$TEMPLATE_DEPTH")
export CCACHE_DISABLE=1

work="$(mktemp -d "${TMPDIR:-/tmp}/staticflow_compile_time.XXXXXX")"
trap 'rm -rf "$work"' EXIT

python3 "$here/compile_time_gen.py" "$work" "${sizes[@]}"

# best_of FILE: "WALL CPU", the fastest of REPEAT compiles by each measure, in seconds (CPU is
# user + system time of the compiler). Fails loudly if a compile fails.
best_of() {
  local src="$1" best_wall="" best_cpu="" t wall cpu
  for ((r = 0; r < REPEAT; ++r)); do
    if ! t="$( { TIMEFORMAT='%R %U %S'; time "$CXX" "${flags[@]}" -c "$src" -o "$work/out.o" 2>"$work/err.txt"; } 2>&1 )"; then
      echo "compile_time.sh: compiling $src failed:" >&2
      head -n 40 "$work/err.txt" >&2
      exit 1
    fi
    read -r wall user sys <<<"$t"
    cpu="$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')"
    wall="$(awk -v w="$wall" 'BEGIN { printf "%.2f", w }')"
    if [ -z "$best_wall" ] || awk -v x="$wall" -v y="$best_wall" 'BEGIN { exit !(x < y) }'; then best_wall="$wall"; fi
    if [ -z "$best_cpu" ] || awk -v x="$cpu" -v y="$best_cpu" 'BEGIN { exit !(x < y) }'; then best_cpu="$cpu"; fi
  done
  echo "$best_wall $best_cpu"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo "Compiler: $("$CXX" --version | head -n 1); flags: ${flags[*]} -c; best of $REPEAT"
echo
echo "| N nodes | staticflow wall (s) | xtensor wall (s) | ratio (wall) | staticflow CPU (s) | xtensor CPU (s) | ratio (CPU) |"
echo "|--------:|--------------------:|-----------------:|-------------:|-------------------:|----------------:|------------:|"
rows=(0)
for n in "${sizes[@]}"; do [ "$n" = 0 ] || rows+=("$n"); done
for n in "${rows[@]}"; do
  read -r sf_wall sf_cpu <<<"$(best_of "$work/sf_$n.cpp")"
  read -r xt_wall xt_cpu <<<"$(best_of "$work/xt_$n.cpp")"
  label="$n"
  [ "$n" != 0 ] || label="0 (includes only)"
  echo "| $label | $sf_wall | $xt_wall | $(ratio "$sf_wall" "$xt_wall") | $sf_cpu | $xt_cpu | $(ratio "$sf_cpu" "$xt_cpu") |"
done

# GRADIENT=1: the gradient function of each chain (sf::grad with respect to all four arguments)
# against the forward function (issue 18's target (d): at most 2x).
if [ "${GRADIENT:-0}" = 1 ]; then
  echo
  echo "| N nodes | forward CPU (s) | gradient CPU (s) | ratio |"
  echo "|--------:|----------------:|-----------------:|------:|"
  for n in "${rows[@]}"; do
    [ "$n" != 0 ] || continue
    read -r _ sf_cpu <<<"$(best_of "$work/sf_$n.cpp")"
    read -r _ gr_cpu <<<"$(best_of "$work/gr_$n.cpp")"
    echo "| $n | $sf_cpu | $gr_cpu | $(ratio "$gr_cpu" "$sf_cpu") |"
  done
fi

# The largest chain length each library compiles at g++'s default template depth (binary search
# with -fsyntax-only, which instantiates the same templates).
if [ "$PROBE_DEPTH" = 1 ]; then
  probe="$work/probe"
  compiles() {  # compiles PREFIX N
    python3 "$here/compile_time_gen.py" "$probe" "$2" >/dev/null
    "$CXX" "${base_flags[@]}" -fsyntax-only "$probe/$1_$2.cpp" >/dev/null 2>&1
  }
  echo
  echo "| library | largest N that compiles with the default -ftemplate-depth (900) |"
  echo "|---|---:|"
  for p in sf xt; do
    name=staticflow; [ "$p" = sf ] || name=xtensor
    lo=1 hi=256
    if compiles "$p" "$hi"; then echo "| $name | >= $hi |"; continue; fi
    while [ $((hi - lo)) -gt 1 ]; do
      mid=$(((lo + hi) / 2))
      if compiles "$p" "$mid"; then lo=$mid; else hi=$mid; fi
    done
    echo "| $name | $lo |"
  done
fi
