#!/bin/sh
# Valid POSIX sh (what dash accepts): no arrays, no [[ ]].
set -eu

PREFIX=${PREFIX:-/usr/local}

usage() {
    echo "usage: $0 [--prefix DIR]" >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) PREFIX=$2; shift 2 ;;
        -h|--help) usage ;;
        *) usage ;;
    esac
done

if command -v python3 >/dev/null 2>&1; then
    echo "installing into $PREFIX"
else
    echo "python3 is missing" >&2
    exit 1
fi
