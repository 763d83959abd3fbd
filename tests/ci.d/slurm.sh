#!/usr/bin/env bash
# The cluster recipe (docs/cluster.md) on a single-node Slurm started on
# this machine: tests/cluster/slurm_test.sh with the CI build's autotune and
# stub driver. It installs slurm-wlm and munge (apt-get) and, like the rest
# of .ci/run, needs root: it starts munged, slurmctld and slurmd.
set -euo pipefail
cd "$(dirname "$0")/../.."
timeout 900 tests/cluster/slurm_test.sh build/ci/autotune build/ci/tests/stubdrv
