#!/usr/bin/env bash
# A user's install: `pip install .` into a fresh venv, no Makefile step, then an offline run and a search.
# Prints the install size. Used by CI (.ci/run); safe to run by hand: everything lives in a temp folder.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PY" -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install --quiet --upgrade pip
# A plain (non-editable) install of the checkout, as pip/pipx/uv users get it.
"$tmp/venv/bin/pip" install --quiet .
site=$("$tmp/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "install size: $(du -sm "$site" | cut -f1) MB in site-packages"
cd "$tmp"
export HF_HUB_OFFLINE=1 ANONYMIZED_TELEMETRY=False BATCHSUM_CACHE_DIR="$tmp/cache"
"$tmp/venv/bin/batchsum" run "$OLDPWD/sample_corpus" --out "$tmp/out" --quiet
"$tmp/venv/bin/batchsum" search "budget meeting" --out "$tmp/out" -k 3
# The eval extra is not installed: a clear message and exit 2, not a traceback.
set +e
"$tmp/venv/bin/batchsum" eval "$OLDPWD/sample_corpus" "$OLDPWD/sample_corpus" >/dev/null 2>"$tmp/eval.err"
rc=$?
set -e
grep -q "batchsum\[eval\]" "$tmp/eval.err" && [ "$rc" -eq 2 ] || { echo "eval without its extra: rc=$rc"; cat "$tmp/eval.err"; exit 1; }
echo "fresh install OK"
