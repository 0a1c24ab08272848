#!/usr/bin/env bash
# Fails when the given paths differ from what git has committed (after `make generate`),
# naming the files, so that a generated file edited by hand or a stale one is caught.
set -euo pipefail
changed=$(git status --porcelain -- "$@")
if [ -n "$changed" ]; then
  echo "verify: generated files differ from the committed ones; run 'make generate' and commit:" >&2
  echo "$changed" >&2
  git --no-pager diff --stat -- "$@" >&2 || true
  exit 1
fi
echo "verify: generated files are up to date"
