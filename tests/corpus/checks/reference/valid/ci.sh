#!/usr/bin/env bash
# CI helper: getopts, select-free menus, arithmetic, quoted heredoc, [[ =~ ]] captures.
set -Eeuo pipefail
shopt -s nullglob globstar

verbose=0
while getopts ":vo:" opt; do
  case $opt in
    v) verbose=$((verbose + 1)) ;;
    o) output=$OPTARG ;;
    \?) echo "unknown option -$OPTARG" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))

version=$(git describe --tags 2>/dev/null || echo "v0.0.0")
if [[ $version =~ ^v([0-9]+)\.([0-9]+) ]]; then
  major=${BASH_REMATCH[1]}
  minor=${BASH_REMATCH[2]}
  echo "major=$major minor=$minor"
fi

files=(src/**/*.py)
echo "${#files[@]} files, verbosity $verbose, output ${output:-stdout}"

cat <<'EOF_SCRIPT' > "${output:-/dev/stdout}"
echo "$not_expanded" $(neither)
EOF_SCRIPT

function retry {
  local attempts=$1; shift
  until "$@"; do
    (( --attempts > 0 )) || return 1
    sleep 1
  done
}
retry 3 true
