#!/usr/bin/env bash
for file in *.txt; do
  echo "$file"
  wc -l "$file"
echo "finished"
