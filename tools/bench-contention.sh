#!/usr/bin/env bash
# tools/bench-contention.sh — issue 13's contention target: how much slower a training step gets when
# another process takes one of the cores. Runs `lintra bench train` alone, then beside a busy loop
# (`sh -c 'while :; do :; done'`), ROUNDS times, for each setting of LINTRA_TEAM_EXCHANGE given (1: the
# team loop swaps a starved thread's core, the default; 0: it does not; core/cpu/team_loop.h), the
# settings alternated within a round, and writes every row to one JSON file with round, beside and
# team_exchange added, then prints busy / quiet per round and setting.
#
#   tools/bench-contention.sh OUT.json [--rounds N] [--exchange "1 0"] [-- bench train options]
#   e.g. tools/bench-contention.sh /tmp/c.json --rounds 3 -- --shapes mnist --variants causal-linear --steps 3
#
# Run it alone on the machine (it is a benchmark); build/lintra must be built.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 1 ]] || { echo "usage: $0 OUT.json [--rounds N] [--exchange \"1 0\"] [-- bench train options]" >&2; exit 2; }
out=$1
shift
rounds=2
settings="1 0"
while (($#)); do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --exchange) settings=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "$0: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[[ -x build/lintra ]] || { echo "$0: build/lintra is missing: build first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'kill "${busy:-}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
busy=

run() {  # round beside setting
  LINTRA_TEAM_EXCHANGE=$3 build/lintra bench train "${@:4}" --json "$tmp/r$1-$2-x$3.json" > "$tmp/r$1-$2-x$3.log" 2>&1 ||
    { cat "$tmp/r$1-$2-x$3.log" >&2; exit 1; }
}

for ((r = 1; r <= rounds; ++r)); do
  for x in $settings; do run "$r" nothing "$x" "$@"; done
  sh -c 'while :; do :; done' &
  busy=$!
  for x in $settings; do run "$r" busy-loop "$x" "$@"; done
  kill "$busy"
  wait "$busy" 2>/dev/null || true
  busy=
done

python3 - "$tmp" "$out" "$*" <<'EOF'
import json, pathlib, re, sys
tmp, out, options = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
rows = []
for f in sorted(tmp.glob("r*.json")):
    r, beside, x = re.match(r"r(\d+)-(nothing|busy-loop)-x(\d)\.json", f.name).groups()
    for row in json.loads(f.read_text()):
        row.update(round=int(r), beside=beside, team_exchange=int(x),
                   command=f"LINTRA_TEAM_EXCHANGE={x} lintra bench train {options}" +
                           ("  (beside sh -c 'while :; do :; done')" if beside == "busy-loop" else ""))
        rows.append(row)
pathlib.Path(out).write_text(json.dumps(rows, indent=1) + "\n")
key = lambda row: (row["shape"], row["variant"], row["team_exchange"], row["round"])
quiet = {key(row): row for row in rows if row["beside"] == "nothing"}
print(f"{'shape':<8} {'variant':<14} {'exchange':>8} {'round':>5} {'quiet_s':>8} {'busy_s':>8} {'busy/quiet':>10} {'exchanges/step':>14}")
for row in sorted((row for row in rows if row["beside"] == "busy-loop"), key=key):
    q = quiet[key(row)]
    print(f"{row['shape']:<8} {row['variant']:<14} {row['team_exchange']:>8} {row['round']:>5} {q['step_s']:>8.3f} "
          f"{row['step_s']:>8.3f} {row['step_s'] / q['step_s']:>10.2f} {row['cpu_exchanges']:>14.1f}")
print(f"wrote {out}")
EOF
