#!/bin/sh
# A stand-in workload for the pipeline tests: prints its arguments; with
# --fail N it exits with N, as a crashing LLM script would.
echo "workload: $*"
while [ $# -gt 0 ]; do
	[ "$1" = --fail ] && exit "$2"
	shift
done
exit 0
