# Fuzz targets of parsers that have no test module of their own here: the
# scenario parser and validator (harness/scenario*.c, schema.c and the
# workloads' loadgen/*_schema.c, with --set overrides and inventory
# substitution) and the response bodies the fault kinds read
# from Kubernetes, slurmrestd, scontrol, Redfish and etcd (faults/bodies.c).
# Each replays its corpus in tests/fuzz/corpus/NAME as a test labelled
# "fuzz"; scripts/fuzz.sh runs every tests/fuzz/fuzz_*.c under libFuzzer.
gl_fuzz_target(fuzz_scenario)
gl_fuzz_target(fuzz_http_bodies)
# What load agents send the controller (harness/core/agent_wire.c).
gl_fuzz_target(fuzz_agent_wire)
# Image facts from crictl, docker and a Kubernetes pod list, and image
# references (harness/lib/imageref.c).
gl_fuzz_target(fuzz_images)
# The per-node figures a load agent sends (harness/core/nodes.c).
gl_fuzz_target(fuzz_nodes)
# The report.json files `gauntlet nodes` reads (reports/ledger.c).
gl_fuzz_target(fuzz_ledger)
