#!/usr/bin/env bash
# gen-ranks.sh [-g gpus] [-s rank] N DIR: the nsys exports of a per-rank
# capture of N ranks (torchrun ... nsys profile -o r%q{RANK}), written as
# DIR/rR_REPORT.csv for R = 0 .. N-1, made from the real per-rank exports
# of a two-H200 tensor-parallel decode (tests/fixtures/h200-tp/tpr0_*,
# tpr1_*; rank 1 straggled there, with 40 extra matmuls a step, and rank
# 0 waited for it inside NCCL).
#
# Rank -s (default 1) is a copy of the real straggler (tpr1), every other
# rank a copy of the real rank that waited (tpr0): each keeps that rank's
# kernel mix, kernel durations and range durations, so the tables of rank
# R are those of its real rank, and one rank of N straggles.  What a rank
# changes, as a capture of another process on another GPU would:
#   PID and TID   20000 + R (one process, one thread: as the real ranks)
#   Device        "NVIDIA H200 (D)", D = R, or R modulo -g GPUS (per node)
#   times         every Start and End moved by R * 1009 ns (Start, End,
#                 Projected Start, Orig Start), durations kept, so ranges
#                 still start exactly at their first GPU operation
# The summaries without PID or time (cuda_gpu_kern_sum, nvtx_sum,
# cuda_api_sum ...) are copied as they are: the same header in every
# rank's file, as lp joins them.  Writes 10 files a rank.
set -eu
export LC_ALL=C
root=$(cd "$(dirname "$0")/.." && pwd)
tp=$root/tests/fixtures/h200-tp
gpus=0
slow=1
usage() { echo "usage: gen-ranks.sh [-g gpus] [-s rank] N DIR" >&2; exit 2; }
while getopts g:s: c; do
	case $c in
	g) gpus=$OPTARG ;;
	s) slow=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 2 ] || usage
n=$1 dir=$2
for v in "$n" "$gpus" "$slow"; do
	case $v in '' | *[!0-9]*) usage ;; esac
done
[ "$n" -ge 1 ] || usage
mkdir -p "$dir"

# One awk a report writes all N ranks' files.  Each template line is cut
# once into the text between the columns that change; a rank's line is
# those pieces with its values between them.
for rep in cuda_api_sum cuda_gpu_kern_sum cuda_gpu_kern_sum_mangled \
	cuda_gpu_mem_time_sum cuda_gpu_trace_mangled nvtx_gpu_proj_trace \
	nvtx_kern_sum nvtx_kern_sum_mangled nvtx_pushpop_trace nvtx_sum; do
	awk -v n="$n" -v gpus="$gpus" -v slow="$slow" -v rep="$rep" -v dir="$dir" '
	# fields(line, raw): raw[1..k], each field as written (quotes kept)
	function fields(line, raw,    k, i, c, q, len, from) {
		k = 0
		q = 0
		from = 1
		len = length(line)
		for (i = 1; i <= len; i++) {
			c = substr(line, i, 1)
			if (c == "\"")
				q = !q
			else if (c == "," && !q) {
				raw[++k] = substr(line, from, i - from)
				from = i + 1
			}
		}
		raw[++k] = substr(line, from)
		return k
	}
	function fail(msg) {
		printf "gen-ranks.sh: %s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
		bad = 1
		exit 2
	}
	FNR == 1 {
		t = FILENAME ~ /tpr1_/
		k = fields($0, raw)
		if (t == 0)
			head = $0
		else if ($0 != head)
			fail("header differs from tpr0_" rep ".csv")
		delete what
		for (i = 1; i <= k; i++)
			if (raw[i] == "PID" || raw[i] == "TID")
				what[i] = "pid"
			else if (raw[i] ~ /^(Start|End|Projected Start|Orig Start) \(ns\)$/)
				what[i] = "time"
			else if (raw[i] == "Device")
				what[i] = "dev"
		next
	}
	{
		k = fields($0, raw)
		m = ++lines[t]
		np = 0
		piece = ""
		for (i = 1; i <= k; i++) {
			if (i > 1)
				piece = piece ","
			if (!(i in what) || raw[i] == "") {
				piece = piece raw[i]
				continue
			}
			if (what[i] == "pid") {
				if (raw[i] !~ /^[0-9]+$/ || (t in pid) && pid[t] != raw[i])
					fail("a second process or a PID not in digits: " raw[i])
				pid[t] = raw[i]
			} else if (what[i] == "time") {
				if (raw[i] !~ /^[0-9]+$/)
					fail("a time not in digits: " raw[i])
				val[t, m, np + 1] = raw[i]
			} else if (!match(raw[i], / \([0-9]+\)$/))
				fail("a device not named \"GPU (N)\": " raw[i])
			else {
				val[t, m, np + 1] = substr(raw[i], 1, RSTART)
				if ((t in devn) && devn[t] != substr(raw[i], RSTART))
					fail("a second device: " raw[i])
				devn[t] = substr(raw[i], RSTART)
			}
			seg[t, m, np++] = piece
			kind[t, m, np] = what[i]
			piece = ""
		}
		seg[t, m, np] = piece
		nps[t, m] = np
	}
	END {
		if (bad)
			exit 2
		for (r = 0; r < n; r++) {
			t = r == slow
			f = dir "/r" r "_" rep ".csv"
			p = 20000 + r
			d = "(" (gpus ? r % gpus : r) ")"
			off = r * 1009
			print head > f
			for (m = 1; m <= lines[t]; m++) {
				line = seg[t, m, 0]
				for (j = 1; j <= nps[t, m]; j++) {
					w = kind[t, m, j]
					line = line (w == "pid" ? p : w == "time" ? sprintf("%.0f", val[t, m, j] + off) : val[t, m, j] d) seg[t, m, j]
				}
				print line > f
			}
			close(f)
		}
	}' "$tp/tpr0_$rep.csv" "$tp/tpr1_$rep.csv"
done
