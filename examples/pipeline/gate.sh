#!/usr/bin/env bash
# Gate a Terraform (or OpenTofu) pipeline through Teamstage: the run, its task stages and the decision
# live in Teamstage; terraform runs here. See README.md next to this file and the main README,
# "Gate your pipeline".
#
#   gate.sh                 plan, hand the plan to Teamstage, and apply it if Teamstage lets it through
#   gate.sh plan            only the first half: plan and hand it over; exits 0 once the plan may be applied
#                           (or has nothing to apply), 3 while a stage awaits an override. Then `gate.sh resume`,
#                           in a later job with the same $TEAMSTAGE_OUT, applies it.
#   gate.sh resume [RUN_ID] wait for the run (e.g. until a person overrode a stage), then apply the saved plan
#                           (RUN_ID defaults to the one saved in $TEAMSTAGE_OUT/run-id)
#
# Environment:
#   TEAMSTAGE_ADDRESS, TEAMSTAGE_TOKEN            the server and a token that may queue runs in the workspace
#   TEAMSTAGE_ORGANIZATION, TEAMSTAGE_WORKSPACE   the workspace (execution-mode "agent")
#   TF_DIR            the configuration directory (default .)
#   TF_BIN            terraform or tofu (default: terraform from PATH, else tofu; TF is read too)
#   TEAMSTAGE         how to call the pipeline client (default: the server's own client, fetched with curl
#                     into $TEAMSTAGE_OUT; e.g. "node teamstage-pipeline.mjs" or "teamstage")
#   TEAMSTAGE_OUT     where the plan file, the run id and the logs go (default: a new temporary directory);
#                     keep it between jobs (a CI artifact or cache) to resume after an override. Never inside
#                     TF_DIR: that directory is uploaded as the configuration (gate.sh refuses it)
#   TEAMSTAGE_OVERRIDE_WAIT  seconds to keep the job waiting while a stage awaits an override (default 0)
#
# Fails closed: every command's exit code is checked (set -euo pipefail, and each `teamstage pipeline`
# code handled), so nothing is applied unless Teamstage said so.
# Exit codes: those of `teamstage pipeline`: 0 done (applied, or nothing to apply), 1 failed,
# 2 usage/transport, 3 a stage awaits an override (a person decides; then `gate.sh resume`).
set -euo pipefail

MODE=${1:-all}
case "$MODE" in
  all | plan | resume) ;;
  *) echo "usage: gate.sh [plan | resume [RUN_ID]]" >&2; exit 2 ;;
esac
: "${TEAMSTAGE_ADDRESS:?gate.sh: set TEAMSTAGE_ADDRESS (the Teamstage server URL)}"
: "${TEAMSTAGE_TOKEN:?gate.sh: set TEAMSTAGE_TOKEN (a token that may queue runs in the workspace)}"
TF_DIR=${TF_DIR:-.}
TF_BIN=${TF_BIN:-${TF:-$(command -v terraform || command -v tofu || true)}}
[ -n "$TF_BIN" ] || { echo "gate.sh: neither terraform nor tofu is on PATH (or set TF_BIN)" >&2; exit 2; }
OUT=${TEAMSTAGE_OUT:-$(mktemp -d)}
mkdir -p "$OUT"
# The plan file holds the state (secrets included) and every run task downloads the configuration: what the
# job writes never goes in the directory `plan-start` packs (a resume packs nothing).
if [ "$MODE" != resume ]; then
  case "$(cd "$OUT" && pwd -P)/" in
    "$(cd "$TF_DIR" && pwd -P)"/*)
      echo "gate.sh: TEAMSTAGE_OUT ($OUT) is inside TF_DIR ($TF_DIR), which is uploaded as the configuration; put it elsewhere" >&2
      exit 2 ;;
  esac
fi
WAIT=(--override-wait "${TEAMSTAGE_OVERRIDE_WAIT:-0}")

if [ -n "${TEAMSTAGE:-}" ]; then
  read -r -a TEAMSTAGE_CMD <<< "$TEAMSTAGE"
else
  # The client that matches the server, from the server: one small file, nothing to install.
  curl -fsSo "$OUT/teamstage-pipeline.mjs" "${TEAMSTAGE_ADDRESS%/}/pipeline/teamstage-pipeline.mjs"
  TEAMSTAGE_CMD=(node "$OUT/teamstage-pipeline.mjs")
fi

pipeline() { "${TEAMSTAGE_CMD[@]}" pipeline "$@"; }
tf() { "$TF_BIN" -chdir="$TF_DIR" "$@"; }

after_override() {
  echo "gate.sh: a person decides in Teamstage (override or discard run $1);" \
    "then run: gate.sh resume $1 (with TEAMSTAGE_OUT=$OUT)" >&2
}

# Ends the script with a `teamstage pipeline` exit code other than 0, saying what to do after a 3.
stop() {
  local code=$1 run=$2
  [ "$code" -ne 3 ] || after_override "$run"
  exit "$code"
}

apply() {
  local run=$1 code=0
  pipeline apply-start --run "$run" "${WAIT[@]}" || stop $? "$run"
  tf apply -input=false -no-color "$OUT/plan.tfplan" 2>&1 | tee "$OUT/apply.log" || code=$?
  if [ "$code" -ne 0 ]; then
    pipeline apply-finish --run "$run" --error "terraform apply exited $code" --log "$OUT/apply.log" > /dev/null || true
    exit 1
  fi
  pipeline apply-finish --run "$run" --log "$OUT/apply.log" "${WAIT[@]}" > /dev/null || stop $? "$run"
}

# A fresh job (another runner, an empty .terraform/) needs the providers and modules the plan was made
# with before `terraform apply` can use the saved plan; the lock file in the configuration pins them.
tf init -input=false -no-color

if [ "$MODE" = resume ]; then
  RUN=${2:-$(cat "$OUT/run-id" 2> /dev/null || true)}
  [ -n "$RUN" ] || { echo "usage: gate.sh resume RUN_ID (no $OUT/run-id saved)" >&2; exit 2; }
  [ -f "$OUT/plan.tfplan" ] || { echo "gate.sh: no saved plan at $OUT/plan.tfplan (keep TEAMSTAGE_OUT between jobs)" >&2; exit 2; }
  STATUS=$(pipeline wait --run "$RUN" "${WAIT[@]}") || stop $? "$RUN"
  if [ "$STATUS" = planned_and_finished ]; then
    echo "gate.sh: no changes, nothing to apply"
    exit 0
  fi
  apply "$RUN"
  exit 0
fi

# 1. Teamstage: upload the configuration, create the run, pass its pre-plan stage, claim the plan.
RUN=$(pipeline plan-start --organization "${TEAMSTAGE_ORGANIZATION:?set TEAMSTAGE_ORGANIZATION}" \
  --workspace "${TEAMSTAGE_WORKSPACE:?set TEAMSTAGE_WORKSPACE}" --config-dir "$TF_DIR" \
  --message "${CI_COMMIT_TITLE:-${GITHUB_SHA:-gate.sh}}" "${WAIT[@]}") || exit $?
echo "gate.sh: run $RUN"
echo "$RUN" > "$OUT/run-id"

# 2. terraform plan, and the plan as JSON for the run tasks.
code=0
tf plan -input=false -no-color -out="$OUT/plan.tfplan" 2>&1 | tee "$OUT/plan.log" || code=$?
if [ "$code" -ne 0 ]; then
  pipeline plan-finish --run "$RUN" --error "terraform plan exited $code" --log "$OUT/plan.log" > /dev/null || true
  exit 1
fi
tf show -json "$OUT/plan.tfplan" > "$OUT/plan.json"

# 3. Teamstage: hand over plan and log; the post-plan run tasks judge the plan.
STATUS=$(pipeline plan-finish --run "$RUN" --plan-json "$OUT/plan.json" --log "$OUT/plan.log" "${WAIT[@]}") || stop $? "$RUN"
if [ "$STATUS" = planned_and_finished ]; then
  echo "gate.sh: no changes, nothing to apply"
  exit 0
fi
if [ "$MODE" = plan ]; then
  echo "gate.sh: the plan may be applied: gate.sh resume (with TEAMSTAGE_OUT=$OUT)"
  exit 0
fi

# 4. Confirm and claim the apply (after the pre-apply stage), terraform apply, report.
apply "$RUN"
