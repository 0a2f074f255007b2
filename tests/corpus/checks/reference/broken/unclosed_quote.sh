#!/bin/bash
echo "starting
name=world
echo "hello $name"
