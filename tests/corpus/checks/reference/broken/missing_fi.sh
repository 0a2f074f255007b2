#!/bin/bash
if [ -f config.env ]; then
  source config.env
  echo "loaded"

echo "done"
