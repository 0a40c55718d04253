#!/usr/bin/env bash
# Gate a Terraform (or OpenTofu) pipeline through Teamstage: the run, its task stages and the decision
# live in Teamstage; terraform runs here. See README.md next to this file and the main README,
# "Gate your pipeline".
#
#   gate.sh                 plan, hand the plan to Teamstage, and apply it if Teamstage lets it through
#   gate.sh resume [RUN_ID] after a person overrode a stage: wait for the run, then apply the saved plan
#                           (RUN_ID defaults to the one saved in $TEAMSTAGE_OUT/run-id)
#
# Environment:
#   TEAMSTAGE_ADDRESS, TEAMSTAGE_TOKEN            the server and a token that may queue runs in the workspace
#   TEAMSTAGE_ORGANIZATION, TEAMSTAGE_WORKSPACE   the workspace (execution-mode "agent")
#   TF_DIR            the configuration directory (default .)
#   TF                terraform or tofu (default: terraform from PATH, else tofu)
#   TEAMSTAGE         how to call the CLI (default: teamstage; e.g. "npx teamstage")
#   TEAMSTAGE_OUT     where the plan file and logs go (default: a new temporary directory); keep it
#                     between jobs (a CI artifact) to resume after an override
#   TEAMSTAGE_OVERRIDE_WAIT  seconds to keep the job waiting while a stage awaits an override (default 0)
#
# Exit codes: those of `teamstage pipeline`: 0 done (applied, or nothing to apply), 1 failed,
# 2 usage/transport, 3 a stage awaits an override (a person decides; then `gate.sh resume RUN_ID`).
set -euo pipefail

TF_DIR=${TF_DIR:-.}
TF=${TF:-$(command -v terraform || command -v tofu || true)}
[ -n "$TF" ] || { echo "gate.sh: neither terraform nor tofu is on PATH (or set TF)" >&2; exit 2; }
read -r -a TEAMSTAGE_CMD <<< "${TEAMSTAGE:-teamstage}"
OUT=${TEAMSTAGE_OUT:-$(mktemp -d)}
mkdir -p "$OUT"
WAIT=(--override-wait "${TEAMSTAGE_OVERRIDE_WAIT:-0}")

pipeline() { "${TEAMSTAGE_CMD[@]}" pipeline "$@"; }

apply() {
  local run=$1
  pipeline apply-start --run "$run" "${WAIT[@]}" || { code=$?; [ $code -eq 3 ] && after_override "$run"; exit $code; }
  if "$TF" -chdir="$TF_DIR" apply -input=false -no-color "$OUT/plan.tfplan" > "$OUT/apply.log" 2>&1; then
    cat "$OUT/apply.log"
    pipeline apply-finish --run "$run" --log "$OUT/apply.log" "${WAIT[@]}" > /dev/null
  else
    cat "$OUT/apply.log"
    pipeline apply-finish --run "$run" --error "terraform apply failed" --log "$OUT/apply.log" > /dev/null || true
    exit 1
  fi
}

after_override() {
  echo "gate.sh: a person decides in Teamstage (override or discard run $1);" \
    "then run: gate.sh resume $1 (with TEAMSTAGE_OUT=$OUT)" >&2
}

if [ "${1:-}" = resume ]; then
  RUN=${2:-$(cat "$OUT/run-id" 2>/dev/null || true)}
  [ -n "$RUN" ] || { echo "usage: gate.sh resume RUN_ID (no $OUT/run-id saved)" >&2; exit 2; }
  STATUS=$(pipeline wait --run "$RUN" "${WAIT[@]}") || { code=$?; [ $code -eq 3 ] && after_override "$RUN"; exit $code; }
  [ "$STATUS" = planned_and_finished ] && { echo "gate.sh: no changes, nothing to apply"; exit 0; }
  apply "$RUN"
  exit 0
fi

"$TF" -chdir="$TF_DIR" init -input=false -no-color

# 1. Teamstage: upload the configuration, create the run, pass its pre-plan stage, claim the plan.
RUN=$(pipeline plan-start --organization "$TEAMSTAGE_ORGANIZATION" --workspace "$TEAMSTAGE_WORKSPACE" \
  --config-dir "$TF_DIR" --message "${CI_COMMIT_TITLE:-${GITHUB_SHA:-gate.sh}}" "${WAIT[@]}") || exit $?
echo "gate.sh: run $RUN"
echo "$RUN" > "$OUT/run-id"

# 2. terraform plan, and the plan as JSON for the run tasks.
if ! "$TF" -chdir="$TF_DIR" plan -input=false -no-color -out="$OUT/plan.tfplan" > "$OUT/plan.log" 2>&1; then
  cat "$OUT/plan.log"
  pipeline plan-finish --run "$RUN" --error "terraform plan failed" --log "$OUT/plan.log" > /dev/null || true
  exit 1
fi
cat "$OUT/plan.log"
"$TF" -chdir="$TF_DIR" show -json "$OUT/plan.tfplan" > "$OUT/plan.json"

# 3. Teamstage: hand over plan and log; the post-plan run tasks judge the plan.
STATUS=$(pipeline plan-finish --run "$RUN" --plan-json "$OUT/plan.json" --log "$OUT/plan.log" "${WAIT[@]}") \
  || { code=$?; [ $code -eq 3 ] && after_override "$RUN"; exit $code; }
if [ "$STATUS" = planned_and_finished ]; then
  echo "gate.sh: no changes, nothing to apply"
  exit 0
fi

# 4. Confirm and claim the apply (after the pre-apply stage), terraform apply, report.
apply "$RUN"
