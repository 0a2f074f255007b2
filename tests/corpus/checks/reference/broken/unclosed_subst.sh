#!/bin/bash
set -e
count=$(ls *.txt | wc -l
echo "$count files"
