#!/usr/bin/env bash
# test_schema.sh - report.json and manifest.json against their published
# schemas (docs/report.schema.json, docs/manifest.schema.json; JSON Schema
# draft 2020-12, checked with python3-jsonschema):
#  - both schemas are themselves valid (Draft202012Validator.check_schema),
#    name draft 2020-12 and carry an $id;
#  - a short real run (inference against `gauntlet target` with an SLO, the
#    null workload, a null fault, targets of every scope) writes a
#    report.json and a manifest.json that validate (found by directory, as
#    lib.sh's finish finds them), each with schema_version 1;
#  - negative controls, twelve edited copies of those files: a key added at
#    the top level, inside faults[0], inside targets[0], inside a
#    distribution, at the manifest's top level and inside one of its hosts;
#    a wrong type (a string for run.duration_s, a number for verdict, a
#    fraction for a count, a number for the manifest's run_id); a required
#    key removed (faults[0].restore_s); schema_version 2. Each fails, and
#    schema_check.py names the file, the JSON path and the message;
#  - the C validator the binary carries (harness/lib/jschema.c, through
#    tests/tools/jschema_check.c) agrees with python3-jsonschema on the
#    real files, on the negative copies and on 400 edited copies
#    (tests/scripts/jschema_diff.py).
# No fixture: everything is generated from the run. (Every other script
# test validates what it wrote as well, in lib.sh's finish.)
. "$(dirname "$0")/lib.sh"
CHK="$GL_SOURCE_DIR/tests/scripts/schema_check.py"
# one python3 for both schemas (a loaded machine takes a second per start)
python3 - "$GL_SOURCE_DIR/docs" > "$T/schemas.out" 2>&1 <<'PY'
import json, sys
try:
    from jsonschema import Draft202012Validator
except ImportError:
    sys.exit(3)
bad = 0
for k in ("report", "manifest"):
    try:
        s = json.load(open("%s/%s.schema.json" % (sys.argv[1], k)))
        Draft202012Validator.check_schema(s)
        assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema", s["$schema"]
        assert s["$id"].endswith("/%s.schema.json" % k), s["$id"]
        assert s.get("additionalProperties") is False, "the top level is not closed"
        print("%s: valid" % k)
    except Exception as e:
        print("%s: %s" % (k, str(e).splitlines()[0]))
        bad = 1
sys.exit(bad)
PY
rc=$?
[ $rc -eq 3 ] && skip "python3-jsonschema (Draft202012Validator) is not installed: apt-get install python3-jsonschema"
sed 's/^/   /' "$T/schemas.out"
check "docs/report.schema.json is a valid draft 2020-12 schema with an \$id" grep -qx "report: valid" "$T/schemas.out"
check "docs/manifest.schema.json is a valid draft 2020-12 schema with an \$id" grep -qx "manifest: valid" "$T/schemas.out"

start_target tgt --seed 7
cat > "$T/sc.json" <<JSON
{ "name": "schema", "duration": "4s", "window": "500ms", "hold": 1,
  "hosts": { "localhost": { "local": true } },
  "workloads": {
    "inference": { "endpoints": ["http://$ADDR/v1"], "api": "chat", "model": "gauntlet-target",
                   "arrival": { "mode": "poisson", "rate": 20 }, "output_tokens": 8, "timeout": "5s",
                   "slo": { "ttft_ms": 2000 } },
    "null": { "rate": 20 }
  },
  "phases": [ { "name": "warmup", "for": "1s" }, { "name": "steady", "for": "3s" } ],
  "faults": [ { "id": "nothing", "at": "1500ms", "for": "500ms", "kind": "null", "target": "localhost" } ],
  "targets": {
    "steady":   { "inference.ttft_ms.p99": "<= 5000", "inference.error_rate": "<= 0.5", "null.ticks": ">= 1",
                  "inference.goodput": ">= 0.5" },
    "degraded": { "inference.error_rate": "<= 0.5" },
    "recovery": { "recovery_s": "<= 4", "restore_s": "<= 4" }
  }
}
JSON
"$GAUNTLET" run "$T/sc.json" --out "$T/run" > "$T/run.log" 2>&1
rc=$?
check "the run ends with a verdict (exit 0 or 1, got $rc)" [ "$rc" -le 1 ]
[ -s "$T/run/report.json" ] || { tail -20 "$T/run.log"; }
R="$T/run/report.json" M="$T/run/manifest.json"
check "report.json and manifest.json: schema_version is 1 (an integer); the report has a fault, targets and the inference figures the negative controls edit" \
	python3 -c "
import json, sys
r, m = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for d in (r, m):
    assert d['schema_version'] == 1 and type(d['schema_version']) is int, d.get('schema_version')
assert r['faults'] and r['targets'] and r['metrics']['inference']['ttft_ms']['count'] > 0
" "$R" "$M"
python3 "$CHK" "$T/run" > "$T/ok.out" 2>&1   # a directory: found by name
rc=$?
sed 's/^/   /' "$T/ok.out"
check "the real run's report.json and manifest.json validate (exit $rc)" [ "$rc" -eq 0 ]
check "...and the checker counts them" grep -qx "schema: 1 report.json, 1 manifest.json valid" "$T/ok.out"

# The negative controls: NAME BASE (report or manifest) 'python statement
# over r' PATH MESSAGE (regular expressions). Each copy of BASE edited by
# its statement must fail validation, the checker naming the copy, the
# JSON path and the message. All copies are made by one python3 and
# checked by one schema_check.py.
NEG=(
	extra-top report "r['surprise'] = 1" '\$' "Additional properties are not allowed \('surprise' was unexpected\)"
	extra-fault report "r['faults'][0]['surprise'] = 'x'" '\$\.faults\[0\]' "Additional properties are not allowed \('surprise' was unexpected\)"
	extra-target report "r['targets'][0]['surprise'] = None" '\$\.targets\[0\]' "Additional properties are not allowed \('surprise' was unexpected\)"
	extra-dist report "r['metrics']['inference']['ttft_ms']['p42'] = 1.0" '\$\.metrics\.inference\.ttft_ms' "Additional properties are not allowed \('p42' was unexpected\)"
	type-duration report "r['run']['duration_s'] = str(r['run']['duration_s'])" '\$\.run\.duration_s' "'[0-9.]*' is not of type 'number'"
	type-verdict report "r['verdict'] = 1" '\$\.verdict' "1 is not one of \['pass', 'fail', 'aborted'\]"
	type-count report "r['metrics']['inference']['requests'] = 1.5" '\$\.metrics\.inference\.requests' "1\.5 is not of type 'integer', 'null'"
	missing-key report "del r['faults'][0]['restore_s']" '\$\.faults\[0\]' "'restore_s' is a required property"
	version-2 report "r['schema_version'] = 2" '\$\.schema_version' "1 was expected"
	extra-manifest manifest "r['surprise'] = True" '\$' "Additional properties are not allowed \('surprise' was unexpected\)"
	extra-host manifest "r['inventory']['hosts']['localhost']['surprise'] = 'x'" '\$\.inventory\.hosts\.localhost' "Additional properties are not allowed \('surprise' was unexpected\)"
	type-manifest manifest "r['run_id'] = 7" '\$\.run_id' "7 is not of type 'string'"
)
mkdir -p "$T/neg"
python3 - "$R" "$M" "$T/neg" "${NEG[@]}" <<'PY' || bad "the negative copies could not be made"
import json, sys
src = {"report": sys.argv[1], "manifest": sys.argv[2]}
a = sys.argv[4:]
for i in range(0, len(a), 5):
    name, base, edit = a[i:i + 3]
    r = json.load(open(src[base]))
    exec(edit)
    json.dump(r, open("%s/%s.%s.json" % (sys.argv[3], name, base), "w"))
PY
python3 "$CHK" "$T/neg"/*.json > "$T/neg.out" 2>&1
rc=$?
sed 's/^/   /' "$T/neg.out"
check "every negative copy fails validation (exit 1, got $rc)" [ "$rc" -eq 1 ]
check "...none of the $((${#NEG[@]} / 5)) counted valid" grep -qx "schema: 0 report.json, 0 manifest.json valid, $((${#NEG[@]} / 5)) invalid" "$T/neg.out"
for ((i = 0; i < ${#NEG[@]}; i += 5)); do
	f="$T/neg/${NEG[i]}.${NEG[i + 1]}.json"
	check "${NEG[i]}: the checker names the file, the path ${NEG[i + 3]} and the message" \
		grep -qE "^FAIL $(printf %s "$f" | sed 's/[.[\*^$]/\\&/g'): ${NEG[i + 3]}: ${NEG[i + 4]}" "$T/neg.out"
done

# The C validator (harness/lib/jschema.c, what the gauntlet binary checks
# its own report.json with) beside python3-jsonschema: the real files valid
# against the schema embedded in the binary and against docs/; every
# negative copy invalid at one of Python's error paths; and 200 edited
# copies of each real file (jschema_diff.py: a key removed or added, a
# value of another type or range), each judged alike by both.
JC="${GL_BINARY_DIR:-$(dirname "$GAUNTLET")}/gl_jschema_check"
DIFF="$GL_SOURCE_DIR/tests/scripts/jschema_diff.py"
check "C validator: the real report.json is valid against the schema embedded in the binary" "$JC" - "$R"
check "C validator: the real report.json and manifest.json are valid against docs/*.schema.json" \
	sh -c '"$1" "$2/report.schema.json" "$3" && "$1" "$2/manifest.schema.json" "$4"' sh "$JC" "$GL_SOURCE_DIR/docs" "$R" "$M"
"$JC" - "$T/neg"/*.report.json > "$T/neg-c.out" 2>&1
sed 's/^/   /' "$T/neg-c.out"
check "C validator (embedded schema): every negative report.json copy is invalid" \
	[ "$(grep -c ': invalid, ' "$T/neg-c.out")" -eq "$(ls "$T/neg"/*.report.json | wc -l)" ]
python3 "$DIFF" "$JC" "$GL_SOURCE_DIR/docs" "$T/neg" 0 "$T/neg"/*.json > "$T/diff-neg.out" 2>&1
rc=$?
sed 's/^/   /' "$T/diff-neg.out"
check "C validator and python3-jsonschema agree on the negative copies, at the same path (exit $rc)" [ "$rc" -eq 0 ]
mkdir -p "$T/diff"
python3 "$DIFF" "$JC" "$GL_SOURCE_DIR/docs" "$T/diff" 200 "$R" "$M" > "$T/diff.out" 2>&1
rc=$?
sed 's/^/   /' "$T/diff.out"
check "C validator and python3-jsonschema agree on 400 edited copies of the real files (exit $rc)" [ "$rc" -eq 0 ]
check "...and some copies were valid, some invalid" grep -qE "^jschema_diff: 402 files \([1-9][0-9]* valid, [1-9][0-9]* invalid\), 0 disagreements$" "$T/diff.out"
finish
