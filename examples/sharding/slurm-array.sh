#!/bin/bash
# thumbgen as a Slurm job array: one task per shard of the manifest (docs/cache.md, "Sharding").
# Slurm gives each task SLURM_ARRAY_TASK_ID, _MIN, _MAX, _STEP and _COUNT; `--shard auto`
# numbers the task (ID - MIN) / STEP of COUNT, so --array=0-3, 1-4 and 0-6:2 all work. A list
# (--array=1,3,7) cannot be numbered and is refused. tests: ShardRecipesTests runs this script
# once per task of the --array line below.
#
#   sbatch slurm-array.sh                       # prints "Submitted batch job 1234"
#   sbatch --dependency=afterany:1234 --wrap \
#     'thumbgen report merge reports/shard-*.json -o report.json --html sheet.html --out thumbs'
#
#SBATCH --job-name=thumbgen
#SBATCH --array=0-3
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --output=logs/thumbgen-%A_%a.out
set -euo pipefail

# The local cache on the node's scratch disk (the shared remote cache sits behind it).
export THUMBGEN_CACHE_DIR="${THUMBGEN_CACHE_DIR:-${TMPDIR:-/tmp}/thumbgen-cache}"
mkdir -p reports
thumbgen render manifest.csv --out thumbs --shard auto --jobs "${SLURM_CPUS_PER_TASK:-2}" \
    --report "reports/shard-${SLURM_ARRAY_TASK_ID}.json" --fail-on never
