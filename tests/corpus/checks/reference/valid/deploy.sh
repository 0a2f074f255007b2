#!/usr/bin/env bash
# Valid bash: arrays, [[ ]], here-docs, functions, traps, process substitution.
set -euo pipefail

readonly TARGETS=(web api worker)
declare -A PORTS=([web]=8080 [api]=9000)
LOG="${TMPDIR:-/tmp}/deploy.log"

log() {
  printf '%s %s\n' "$(date +%T)" "$*" >>"$LOG"
}

cleanup() {
  local status=$?
  log "exit ${status}"
}
trap cleanup EXIT

for target in "${TARGETS[@]}"; do
  if [[ -n "${PORTS[$target]:-}" && "$target" =~ ^w ]]; then
    log "deploying ${target} on port ${PORTS[$target]}"
  fi
done

while IFS= read -r line; do
  case "$line" in
    \#*) continue ;;
    *=*) export "${line?}" ;;
    *) log "ignored: $line" ;;
  esac
done < <(printf 'A=1\n# comment\n')

cat <<EOT
Deployed ${#TARGETS[@]} targets.
EOT
(( count = ${#TARGETS[@]} * 2 ))
echo "$count"
