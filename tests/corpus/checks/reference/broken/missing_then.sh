#!/bin/bash
if [ "$1" = "--help" ]
  echo "usage: run.sh [--help]"
fi
