#!/bin/sh
# A stand-in workload for the pipeline tests: prints its arguments; with
# --fail N it exits with N, as a crashing LLM script would.
echo "workload: $*"
# a run takes time, as a real one does: timed alone, it is never 0.00 s
sleep 0.02
while [ $# -gt 0 ]; do
	[ "$1" = --fail ] && exit "$2"
	shift
done
exit 0
