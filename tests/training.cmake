# The training workload in the controller against real mpirun on loopback:
# relaunch and restore after a SIGKILLed rank, the watchdog naming a
# SIGSTOPped rank, the multi-node check, nccl-tests output through the
# workload. Its watchdog and heartbeat timings want the CPU to themselves.
gl_script_test(test_training ${GL_TESTS_DIR}/scripts/test_training.sh TIMEOUT 400)
gl_test_asan_long(test_training)
gl_test_alone(test_training)
# Incidents: a rank killed by the test, not by a fault, is one incident and
# fails the verdict by default; incidents.max allows it.
gl_script_test(test_incidents ${GL_TESTS_DIR}/scripts/test_incidents.sh TIMEOUT 300)
gl_test_asan_long(test_incidents)
# A SIGKILLed controller leaves no training job behind (PR_SET_PDEATHSIG
# on the launcher and the ranks), and resume stops a job that a detaching
# launcher wrapper kept alive before it launches its own: never two jobs on
# one checkpoint directory (real mpirun on loopback, process listings).
gl_script_test(test_orphans ${GL_TESTS_DIR}/scripts/test_orphans.sh TIMEOUT 300)
gl_test_asan_long(test_orphans)
# Naming the bad node against ground truth (docs/nodes.md): a clean run
# with four replicas and four ranks has no suspect; a replica three times
# slower, a rank stopped on a duty cycle and a corrupted contribution are
# each the one suspect. Nodes are scored against peers on the same machine
# in the same windows, so the suite running beside it moves them alike.
gl_script_test(test_nodes ${GL_TESTS_DIR}/scripts/test_nodes.sh TIMEOUT 300)
# six real runs with mpirun (about 90 s): its sanitizer twin only with
# GL_ASAN_ALL=1; the scoring's code has its own sanitized tests
# (test_node_scores, fuzz_nodes, fuzz_ledger)
gl_test_asan_long(test_nodes)
# `gauntlet nodes`, the ledger across runs, on report.json files with known
# suspects and an evidence repository made with git.
gl_script_test(test_ledger ${GL_TESTS_DIR}/scripts/test_ledger.sh TIMEOUT 120)
# One window's scoring of nodes against their peers on known figures.
gl_unit_test(test_node_scores ${GL_TESTS_DIR}/unit/test_node_scores.c TIMEOUT 60)
# The run's node analysis on a store of known figures: inside a fault's
# span the nodes on hosts it does not touch are judged against each other
# (and none in a span whose reach is not known); a node scored against its
# own first windows (its self score, exact).
gl_unit_test(test_node_history ${GL_TESTS_DIR}/unit/test_node_history.c TIMEOUT 60)
# `gauntlet bisect` and `gauntlet sweep` against ground truth over 8 lab
# workers (`gauntlet lab up --workers 8` in its own directory), ranks
# started in them by mpirun through the lab's launcher agent; no bad link:
# clean in one job, a sweep with no suspect; a run with "bisect" passes
# without bisecting; one worker's link at 1 Mbit/s (tc tbf): a run with
# "sweep" names it before its load, fails and its bisection names it in at
# most 4 jobs; one link slowed alone: the sweep names the link.
# Its threshold is 2.4x the link's rate; the sanitizer twin only with
# GL_ASAN_ALL=1 (the search is plain C, the jobs are gauntlet-train's).
gl_script_test(test_bisect ${GL_TESTS_DIR}/scripts/test_bisect.sh TIMEOUT 420)
gl_test_asan_long(test_bisect)
# Its ranks (8 workers on two cores) take the CPU in bursts: never beside
# the tests that judge two runs against each other (test_compare_runs,
# test_compare_gate and its sanitizer twin) or a loss fault's run against
# its targets (test_netfaults); in CI runs beside a CPU hog each failed so
# once while it ran.
# The lab's namespaces, links and Slurm are machine-wide: never beside
# test_lab (or the other build's twin).
gl_test_lock(test_bisect bisect_cpu lab slurm)
# The bisection's search against an exact oracle: every N from 2 to 64 and
# every bad host, the bound of ceil(log2 N) + 2 jobs (one more with the
# whole set first), a bad link between any two hosts naming none, the budget.
gl_unit_test(test_bisect_search ${GL_TESTS_DIR}/unit/test_bisect_search.c TIMEOUT 60)
# The node sweep's rounds (every pair once, no host twice a round, N from 2
# to 256) and its judgment over known matrices: every bad host and every
# bad link of N from 3 to 24 named alone, a clean matrix none, the
# tolerance (docs/nodes.md "Node sweeps").
gl_unit_test(test_sweep_judge ${GL_TESTS_DIR}/unit/test_sweep_judge.c TIMEOUT 60)
