#!/usr/bin/env bash
# dupes.sh - copied code in the C sources: identical runs of 6 or more
# significant lines (whitespace normalised; blank, brace-only,
# comment-only and #include lines skipped), each pair with file:lines, then a total.
# See scripts/dupes.py for the rules. Arguments: directories or files
# (default harness loadgen faults reports); --min N for another run length;
# --quiet for the total only. Examples:
#   bash scripts/dupes.sh                 # the whole tree
#   bash scripts/dupes.sh --quiet faults  # faults/ alone, the figure only
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/dupes.py "$@"
