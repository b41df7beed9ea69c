#!/usr/bin/env bash
# Peak memory of `xflex solve` against request size, for docs/MEMORY.md.
# Run by hand (minutes; not part of CI):
#   go build -o /tmp/xflex ./cmd/xflex && bash benchmarks/memory/run.sh /tmp/xflex
# Prints one tab-separated row per instance: problem, instance, body
# bytes, peak RSS in MB (GNU time's maximum resident set size) and bytes
# of peak RSS above an empty process's per body byte. Each solve is cut
# at 180 s of wall time; a row whose solve failed says so.
set -euo pipefail
xflex=${1:?usage: run.sh XFLEX_BINARY}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# gen PROBLEM BUDGET_MS ARGS...: a generated request, compact (jq -c),
# with budget_ms set.
gen() {
	local p=$1 budget=$2
	shift 2
	"$xflex" gen "$p" "$@" | jq -c --argjson b "$budget" '.budget_ms = $b'
}

# row PROBLEM NAME FILE: solve FILE and print its row.
row() {
	local p=$1 name=$2 f=$3 bytes kb status
	bytes=$(stat -c %s "$f")
	status=ok
	if ! timeout 180 /usr/bin/time -f %M -o "$dir/rss" "$xflex" solve --quiet --max-body 67108864 "$p" "$f" >"$dir/out" 2>"$dir/err"; then
		status="failed: $(head -c 120 "$dir/out" "$dir/err" | tr '\n\t' '  ')"
	fi
	kb=$(tail -1 "$dir/rss")
	awk -v p="$p" -v n="$name" -v b="$bytes" -v kb="$kb" -v base="${BASE_KB:-0}" -v s="$status" \
		'BEGIN { printf "%s\t%s\t%d\t%.0f\t%.1f\t%s\n", p, n, b, kb/1024, (kb-base)*1024/b, s }'
}

# The empty process: a tiny cmmf request.
gen cmmf 1000 --users 2 --types 1 --machines 2 >"$dir/base.json"
/usr/bin/time -f %M -o "$dir/rss" "$xflex" solve --quiet cmmf "$dir/base.json" >/dev/null
BASE_KB=$(tail -1 "$dir/rss")
echo "# baseline RSS: $((BASE_KB / 1024)) MB"

# case PROBLEM NAME BUDGET_MS GEN_ARGS...: a generated instance.
case_gen() {
	local p=$1 name=$2 budget=$3
	shift 3
	gen "$p" "$budget" "$@" >"$dir/req.json"
	row "$p" "$name" "$dir/req.json"
}

# case_file PROBLEM NAME JSON: a hand-written short body.
case_file() {
	printf '%s' "$3" >"$dir/req.json"
	row "$1" "$2" "$dir/req.json"
}

only=${ONLY:-}
want() { [[ -z $only || $1 == "$only" ]]; }

if want cmmf; then
	case_gen cmmf "per-machine 5000u 100t 100000m" 10000 --users 5000 --types 100 --machines 100000 --individual true --divisible false
	case_gen cmmf "types 50000u 1000t 1e6m" 30000 --users 50000 --types 1000 --machines 1000000 --divisible false
	case_gen cmmf "types 100000u 20t divisible" 10000 --users 100000 --types 20
	case_file cmmf "short: 2 users, 1 type of 5e6 machines (Choosy), integer" '{"budget_ms":20000,"divisible":false,"users":[{"name":"a"},{"name":"b"}],"machine_types":[{"name":"t","count":5000000}]}'
	case_file cmmf "short: 2 users, 1 type of 1e9 machines, integer" '{"budget_ms":10000,"divisible":false,"users":[{"name":"a"},{"name":"b"}],"machine_types":[{"name":"t","count":1000000000}]}'
	case_file cmmf "short: 2 users, 1 type of 1e9 machines, divisible" '{"budget_ms":10000,"users":[{"name":"a"},{"name":"b"}],"machine_types":[{"name":"t","count":1000000000}]}'
fi
if want fairshare; then
	case_gen fairshare "types 2000f 1e6 copies drf" 10000 --frameworks 2000 --servers 1000000 --types 50 --policy drf
	case_gen fairshare "types 2000f 1e6 copies mmf" 10000 --frameworks 2000 --servers 1000000 --types 50 --policy mmf
	case_gen fairshare "expanded 200f 50000 servers drf" 10000 --frameworks 200 --servers 50000 --types 50 --expand true --policy drf
	case_gen fairshare "expanded 5000f 5000 servers unrestricted drf" 5000 --frameworks 5000 --servers 5000 --types 5000 --expand true --restricted 0 --policy drf
	case_file fairshare "short: 1 server type of 1e6 copies, drf" '{"budget_ms":10000,"policy":"drf","resources":["cpu"],"servers":[{"name":"s","capacity":[1],"count":1000000}],"frameworks":[{"name":"f","demand":[0.001]}]}'
	names=$(printf '"r%d",' $(seq 64)) caps=$(printf '1,%.0s' $(seq 64)) d1=$(printf '0.001,%.0s' $(seq 64)) d2=$(printf '0.002,%.0s' $(seq 64))
	case_file fairshare "short: 64 resources, 1e6 copies, drf" "{\"budget_ms\":10000,\"policy\":\"drf\",\"resources\":[${names%,}],\"servers\":[{\"name\":\"s\",\"capacity\":[${caps%,}],\"count\":1000000}],\"frameworks\":[{\"name\":\"f\",\"demand\":[${d1%,}]},{\"name\":\"g\",\"demand\":[${d2%,}]}]}"
	case_file fairshare "short: 64 resources, 1e9 copies, mmf" "{\"budget_ms\":10000,\"policy\":\"mmf\",\"resources\":[${names%,}],\"servers\":[{\"name\":\"s\",\"capacity\":[${caps%,}],\"count\":1000000000}],\"frameworks\":[{\"name\":\"f\",\"demand\":[${d1%,}]},{\"name\":\"g\",\"demand\":[${d2%,}]}]}"
fi
if want flex; then
	case_gen flex "500 jobs 100000 slots" 10000 --jobs 500 --slots 100000
	case_gen flex "5000 jobs 100000 slots" 10000 --jobs 5000 --slots 100000
	case_gen flex "20000 jobs 100000 slots" 10000 --jobs 20000 --slots 100000
	case_gen flex "100000 jobs 100000 slots" 10000 --jobs 100000 --slots 100000
	case_gen flex "20 jobs 1e9 slots" 10000 --jobs 20 --slots 1000000000
	case_gen flex "50000 jobs 100000 slots" 10000 --jobs 50000 --slots 100000
	case_gen flex "50000 jobs 1000 slots" 10000 --jobs 50000 --slots 1000
fi
if want xsize; then
	case_gen xsize "1e6 requests 4 dims" 10000 --requests 1000000 --distinct 1000 --dims 4 --k 16
	case_gen xsize "1e5 requests 4 dims" 10000 --requests 100000 --distinct 1000 --dims 4 --k 16
	case_gen xsize "1e6 requests 1 dim" 10000 --requests 1000000 --distinct 1000 --dims 1 --k 16
	case_gen xsize "1e6 requests 1 dim 10 distinct" 10000 --requests 1000000 --distinct 10 --dims 1 --k 2
	case_gen xsize "3e5 requests 2 dims" 10000 --requests 300000 --distinct 100 --dims 2 --k 8
fi
if want xselect; then
	case_gen xselect "1000 nodes 100 apps" 10000 --nodes 1000 --apps 100 --types 20
	case_gen xselect "10000 nodes 100 apps" 10000 --nodes 10000 --apps 100 --types 20
	case_gen xselect "10000 nodes 10 apps" 10000 --nodes 10000 --apps 10 --types 20
	case_gen xselect "50000 nodes 10 apps" 10000 --nodes 50000 --apps 10 --types 20
	case_gen xselect "2000 nodes 1000 apps" 10000 --nodes 2000 --apps 1000 --types 20
	case_gen xselect "100 nodes max_count 1e6" 10000 --nodes 100 --max_count 1000000
fi
if want tetris-assign; then
	case_gen tetris-assign "5000 machines 40000 tasks" 10000 --machines 5000 --tasks 40000 --jobs 200
	case_gen tetris-assign "500 machines 40000 tasks" 10000 --machines 500 --tasks 40000 --jobs 200
	case_gen tetris-assign "5000 machines 4000 tasks" 10000 --machines 5000 --tasks 4000 --jobs 200
	case_gen tetris-assign "1000 machines 10000 tasks" 10000 --machines 1000 --tasks 10000 --jobs 20
fi
if want tetris-simulate; then
	case_gen tetris-simulate "200 jobs 200 machines size 1" 10000 --jobs 200 --machines 200 --size 1
	case_file tetris-simulate "short: one stage of 10^6 tasks" '{"budget_ms":5000,"machines":[{"name":"m","capacity":{"cpu":32,"memory":96}}],"jobs":[{"id":"j","arrival":0,"stages":[{"name":"map","tasks":1000000,"demand":{"cpu":1,"memory":2},"duration":1}]}],"policy":"tetris"}'
	case_file tetris-simulate "short: two stages of 10^6 tasks (MaxTasks)" '{"budget_ms":5000,"machines":[{"name":"m","capacity":{"cpu":32,"memory":96}}],"jobs":[{"id":"j","arrival":0,"stages":[{"name":"map","tasks":1000000,"demand":{"cpu":1,"memory":2},"duration":1},{"name":"red","tasks":1000000,"demand":{"cpu":1,"memory":2},"duration":1,"after":["map"]}]}],"policy":"tetris"}'
fi
if want xschedule-assign; then
	case_gen xschedule-assign "50000 nodes 50000 requests" 10000 --nodes 50000 --requests 50000 --apps 100
	case_gen xschedule-assign "50000 nodes 5000 requests" 10000 --nodes 50000 --requests 5000 --apps 100
	case_gen xschedule-assign "5000 nodes 50000 requests" 10000 --nodes 5000 --requests 50000 --apps 100
	case_gen xschedule-assign "10000 nodes 10000 requests" 10000 --nodes 10000 --requests 10000 --apps 10
	case_gen xschedule-assign "20 nodes 10 requests count 1000" 10000 --nodes 20 --max_count 1000
fi
if want xschedule-simulate; then
	case_gen xschedule-simulate "400 nodes 4000 requests" 10000 --nodes 400 --requests 4000 --apps 20
	case_gen xschedule-simulate "8 nodes 40 requests count 100" 10000 --max_count 100
	"$xflex" gen xschedule-simulate --requests 1 --nodes 4 --apps 1 | jq -c '.budget_ms = 5000 | .requests[0].count = 1000000 | .requests[0].size = [1,1]' >"$dir/req.json"
	row xschedule-simulate "short: one request of 10^6 containers" "$dir/req.json"
	jq -c '.budget_ms = 30000' "$dir/req.json" >"$dir/req30.json"
	row xschedule-simulate "short: one request of 10^6 containers, 30 s" "$dir/req30.json"
fi
# Issue 28's largest instances (ONLY=large), at the budgets it probed and
# at the longest of benchmarks/budget's: peak RSS with Go's default GC
# (GOGC=100, no memory limit, as `xflex solve` runs) counts the garbage
# the collector has not yet taken, which is what the estimates must cover.
if [[ $only == large ]]; then
	case_gen fairshare "100000f x 100000 servers mmf, 2 s" 2000 --frameworks 100000 --servers 100000 --types 50 --policy mmf
	case_gen fairshare "100000f x 100000 servers drf, 2 s" 2000 --frameworks 100000 --servers 100000 --types 50 --policy drf
	case_gen fairshare "100000f x 100000 servers pf, 2 s" 2000 --frameworks 100000 --servers 100000 --types 50 --policy pf
	case_gen fairshare "100000f x 100000 servers pf, 10 s" 10000 --frameworks 100000 --servers 100000 --types 50 --policy pf
	case_gen xschedule-simulate "2500 nodes 100000 requests, 200 ms" 200 --nodes 2500 --apps 20 --requests 100000 --span 100000
	case_gen xschedule-simulate "2500 nodes 100000 requests, 10 s" 10000 --nodes 2500 --apps 20 --requests 100000 --span 100000
	case_gen tetris-assign "10000 machines 80000 tasks, 50 ms" 50 --tasks 80000 --machines 10000 --jobs 100
	case_gen tetris-assign "10000 machines 80000 tasks, 10 s" 10000 --tasks 80000 --machines 10000 --jobs 100
	case_gen tetris-assign "250 machines 40000 tasks seed 3 (the load body), 2 s" 2000 --seed 3 --tasks 40000 --machines 250
	case_gen cmmf "100000 users, 50 ms" 50 --users 100000
	case_gen cmmf "100000 users, 10 s" 10000 --users 100000
fi
