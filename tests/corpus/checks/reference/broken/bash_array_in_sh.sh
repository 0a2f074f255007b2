#!/bin/sh
set -e
names=(alice bob)
echo "${names[0]}"
