#!/usr/bin/env bash
# Loads this folder's three OPA policies into an organization and groups them in one policy set, from any
# directory (the Rego files are read beside this script). Fails closed: the first refused request stops it with
# the server's answer, and a policy whose Rego is refused is deleted again, so nothing is left half made.
#
#   TEAMSTAGE_TOKEN    an owner's token, or one of a team with manage-policies (required)
#   ORG                the organization (required)
#   WORKSPACES         names of the workspaces the set applies to, comma-separated; empty: every workspace (global)
#   TEAMSTAGE_ADDRESS  the server (default http://127.0.0.1:8080)
#   SET_NAME           the policy set's name (default example-policies)
#
# Prints the policy set's id. Needs bash, curl and node (for reading JSON).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
api="${TEAMSTAGE_ADDRESS:-http://127.0.0.1:8080}/api/v2"
: "${TEAMSTAGE_TOKEN:?set TEAMSTAGE_TOKEN to an owner or manage-policies token}"
: "${ORG:?set ORG to the organization}"
set_name=${SET_NAME:-example-policies}

# request METHOD PATH [curl arguments]: prints the answer's body; a refusal (4xx, 5xx) is told on stderr and fails.
request() {
  local method=$1 path=$2 body
  shift 2
  if ! body=$(curl -sS --fail-with-body -X "$method" -H "Authorization: Bearer $TEAMSTAGE_TOKEN" "$@" "$api$path"); then
    echo "load.sh: $method $path was refused: $body" >&2
    return 1
  fi
  printf '%s' "$body"
}
send_json() { request "$1" "$2" -H 'Content-Type: application/vnd.api+json' --data-binary "$3"; }
# id_of JSON: the document's data.id.
id_of() { node -e 'process.stdout.write(JSON.parse(process.argv[1]).data.id)' "$1"; }

policies=()
for entry in no_public_ingress:mandatory required_tags:advisory no_destroy_protected:mandatory; do
  file=${entry%%:*} level=${entry##*:}
  created=$(send_json POST "/organizations/$ORG/policies" \
    "{\"data\":{\"type\":\"policies\",\"attributes\":{\"name\":\"${file//_/-}\",\"kind\":\"opa\",\"query\":\"data.terraform.policies.$file.deny\",\"enforcement-level\":\"$level\"}}}")
  id=$(id_of "$created")
  if ! request PUT "/policies/$id/upload" -H 'Content-Type: application/octet-stream' --data-binary "@$here/$file.rego" >/dev/null; then
    request DELETE "/policies/$id" >/dev/null || true
    echo "load.sh: the server refused $file.rego; policy ${file//_/-} was not kept" >&2
    exit 1
  fi
  policies+=("{\"type\":\"policies\",\"id\":\"$id\"}")
done

workspaces=() global=true
IFS=, read -ra names <<<"${WORKSPACES:-}"
for name in "${names[@]}"; do
  [ -n "$name" ] || continue
  found=$(request GET "/organizations/$ORG/workspaces/$name")
  workspaces+=("{\"type\":\"workspaces\",\"id\":\"$(id_of "$found")\"}")
  global=false
done

join() { local IFS=,; echo "$*"; }
set=$(send_json POST "/organizations/$ORG/policy-sets" \
  "{\"data\":{\"type\":\"policy-sets\",\"attributes\":{\"name\":\"$set_name\",\"kind\":\"opa\",\"overridable\":true,\"global\":$global},
    \"relationships\":{\"policies\":{\"data\":[$(join "${policies[@]}")]},\"workspaces\":{\"data\":[$(join "${workspaces[@]+"${workspaces[@]}"}")]}}}}")
id_of "$set"
echo
