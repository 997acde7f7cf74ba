#!/usr/bin/env bash
# Coverage-guided fuzzing of Tessera's parsers with libFuzzer (tests/fuzz).
#
#   scripts/fuzz.sh --seconds 60          # CI: the four parser fuzzers, 60 s
#   scripts/fuzz.sh --hours 8             # a local campaign, split across fuzzers
#   scripts/fuzz.sh --hours 1 --only helion_pipeline --jobs 2
#   scripts/fuzz.sh --hours 2 --only ir_parser -- -entropic=0
#   scripts/fuzz.sh --hours 2 --only helion_frontend -- -entropic=0 -fork=2
#
# Arguments after `--` go to every libFuzzer run. With corpora of thousands
# of inputs, libFuzzer's default (entropic) schedule spends most of its time
# in InputCorpus::UpdateFeatureFrequency (perf: 68 % of helion_frontend's);
# -entropic=0 gives 3x (helion_frontend) to 2x (ir_parser) the executions.
#
# Builds build-fuzz/ with clang (-DTESSERA_FUZZ=ON: libFuzzer, ASan, UBSan),
# seeds each corpus (build-fuzz/corpus/<fuzzer>/, kept between runs) from
# examples/, tests/ and the saved regressions, runs the fuzzers (up to
# --jobs at a time) and prints, per fuzzer: executions, edges covered,
# corpus size and findings. Findings (crash-*, leak-*, timeout-*, oom-*)
# land in build-fuzz/findings/<fuzzer>/; minimize one with
#   build-fuzz/tests/fuzz/<fuzzer>_fuzzer -minimize_crash=1 -runs=10000 FILE
# and keep it under tests/fuzz/regressions/<fuzzer>/ once fixed.
# Each run appends its numbers to build-fuzz/campaign-ledger.tsv; the table
# also shows each fuzzer's executions summed over the ledger.
# Exit status 1 when any fuzzer found something.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=""
only=""
jobs="${TESSERA_JOBS:-$(nproc)}"
libfuzzer_args=()
while (($#)); do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --hours) seconds=$(python3 -c "print(int(float('$2') * 3600))"); shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --) shift; libfuzzer_args=("$@"); break ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "fuzz.sh: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
seconds="${seconds:-60}"
# A short run (CI) builds and runs the four parser fuzzers, which need no
# plugins; campaigns add the two that run the whole pipeline.
FUZZERS=(ir_parser helion_frontend pipeline_config plugin_info)
if ((seconds > 120)); then FUZZERS+=(ir_pipeline helion_pipeline); fi
if [[ -n "$only" ]]; then FUZZERS=($only); fi
targets=()
for name in "${FUZZERS[@]}"; do targets+=("${name}_fuzzer"); done

TESSERA_FUZZ=1 bash scripts/setup.sh
BUILD=build-fuzz
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DTESSERA_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=Release -DTESSERA_BUILD_BENCH=OFF \
  -DTESSERA_UNITY_BUILD="${TESSERA_UNITY_BUILD:-ON}" "${launcher[@]}" >/dev/null
cmake --build "$BUILD" -j "$jobs" --target "${targets[@]}"

# Per-fuzzer seeds: the same files the replay tests run in every build.
seeds_of() {
  case "$1" in
    ir_parser|ir_pipeline) ls tests/*/inputs/*.tir tests/*/ir/*.tir tests/*/ir/*.expected 2>/dev/null ;;
    helion_frontend|helion_pipeline) ls examples/*.py tests/frontend/ir/*.py tests/random_kernels/regressions/*.py 2>/dev/null ;;
    pipeline_config) ls configs/*.toml tests/*/inputs/*.toml 2>/dev/null ;;
    plugin_info) ls tests/fuzz/seeds/plugin_info/* ;;
  esac
  if [[ -d "tests/fuzz/regressions/$1" ]]; then find "tests/fuzz/regressions/$1" -type f; fi
}

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
# A campaign records no allocation stacks: unwinding at every malloc cost
# helion_frontend a quarter of its executions (perf: StackDepot::Put and
# UnwindFast). A finding is replayed with full stacks by its _replay binary.
if ((seconds > 120)); then ASAN_OPTIONS+=:malloc_context_size=0; fi
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# A short run (CI) runs every fuzzer at once for `seconds`; a campaign splits
# its time: each fuzzer runs seconds * jobs / count, at most `jobs` at a
# time, so the wall time stays about `seconds`.
per_fuzzer=$seconds
parallel=$jobs
if ((seconds <= 120)); then
  parallel=${#FUZZERS[@]}
elif ((${#FUZZERS[@]} > jobs)); then
  per_fuzzer=$(( seconds * jobs / ${#FUZZERS[@]} ))
fi

run_one() {
  local name="$1" corpus="$BUILD/corpus/$1" findings="$BUILD/findings/$1"
  mkdir -p "$corpus" "$findings"
  seeds_of "$name" | while read -r seed; do
    cp -n "$seed" "$corpus/seed-$(echo "$seed" | tr '/' '_')" 2>/dev/null || true
  done
  local dict=() grammar="${name/ir_pipeline/ir_parser}"
  grammar="${grammar/helion_pipeline/helion_frontend}"
  if [[ -f "tests/fuzz/dict/$grammar.dict" ]]; then dict=(-dict="tests/fuzz/dict/$grammar.dict"); fi
  local started=$SECONDS
  "$BUILD/tests/fuzz/${name}_fuzzer" "$corpus" "${dict[@]}" \
    -max_total_time="$per_fuzzer" -timeout=20 -rss_limit_mb=4096 -max_len=8192 \
    -artifact_prefix="$findings/" -print_final_stats=1 "${libfuzzer_args[@]}" \
    >"$BUILD/fuzz-$name.log" 2>&1 || true
  echo $((SECONDS - started)) >"$BUILD/fuzz-$name.seconds"
}

running=0
for name in "${FUZZERS[@]}"; do
  run_one "$name" &
  running=$((running + 1))
  if ((running >= parallel)); then wait -n; running=$((running - 1)); fi
done
wait

# Campaigns add up: every run appends its numbers to a ledger kept with the
# corpora, and the table shows each fuzzer's total executions over all runs.
LEDGER="$BUILD/campaign-ledger.tsv"
if [[ ! -f "$LEDGER" ]]; then
  printf 'date\tfuzzer\tseconds\texecutions\tedges\tcorpus\tfindings\tcommit\n' >"$LEDGER"
fi
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
status=0
printf '%-16s %12s %8s %8s %9s %14s\n' fuzzer executions edges corpus findings "total (ledger)"
for name in "${FUZZERS[@]}"; do
  log="$BUILD/fuzz-$name.log"
  execs=$(grep -oP 'stat::number_of_executed_units:\s*\K\d+' "$log" | tail -1) || true
  edges=$(grep -oP '\bcov: \K\d+' "$log" | tail -1) || true
  if [[ -z "$execs" ]]; then
    # -fork=N (one fuzzer on N cores) prints no final stats: its last status
    # line ("#578661: cov: ...") counts the executions of all its jobs, but
    # its cov is not a single run's edge count (71,000 against 11,300 on
    # helion_frontend's corpus), so the corpus is replayed once for that.
    execs=$(grep -oP '^#\K\d+(?=: cov:)' "$log" | tail -1) || true
    if [[ -n "$execs" ]]; then
      edges=$("$BUILD/tests/fuzz/${name}_fuzzer" "$BUILD/corpus/$name" -runs=0 \
        -max_len=8192 -rss_limit_mb=4096 2>&1 | grep -oP 'INITED cov: \K\d+' | tail -1) || true
    fi
  fi
  # The seconds it ran, not the budget: a campaign stopped early (SIGINT to
  # the fuzzers) records what it did.
  ran=$(cat "$BUILD/fuzz-$name.seconds" 2>/dev/null || true)
  corpus=$(find "$BUILD/corpus/$name" -type f | wc -l)
  found=$(find "$BUILD/findings/$name" -type f | wc -l)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$name" "${ran:-$per_fuzzer}" \
    "${execs:-0}" "${edges:-0}" "$corpus" "$found" "$commit" >>"$LEDGER"
  total=$(awk -F'\t' -v n="$name" '$2 == n { s += $4 } END { print s + 0 }' "$LEDGER")
  printf '%-16s %12s %8s %8s %9s %14s\n' "$name" "${execs:-?}" "${edges:-?}" "$corpus" "$found" "$total"
  if ((found > 0)) || [[ -z "$execs" ]]; then
    status=1
    find "$BUILD/findings/$name" -type f | sed 's/^/  finding: /'
    grep -m3 -E 'ERROR|internal error|SUMMARY' "$log" | sed 's/^/  /' || true
  fi
done
exit $status
