#!/usr/bin/env bash
# The test entry point (`npm test`): on a fresh machine it installs the system programs the suite
# drives when they are missing, then runs vitest with the arguments given (`npm test -- test/x.test.ts`).
#   chromium  the browser tools (playwright-core never downloads a browser; AGENTD_CHROMIUM names another)
#   firefox-esr  the web UI's Firefox test (puppeteer-core, WebDriver BiDi; AGENTD_FIREFOX names another)
#   rg        the glob and grep tools (ripgrep)
#   bwrap     the isolating sandbox provider (bubblewrap)
#   git, tar  the git and file-archive routes
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
if [[ -z ${AGENTD_CHROMIUM:-} ]] && ! command -v chromium >/dev/null 2>&1; then missing+=(chromium); fi
if [[ -z ${AGENTD_FIREFOX:-} ]] && ! command -v firefox-esr >/dev/null 2>&1; then missing+=(firefox-esr); fi
if ! command -v rg >/dev/null 2>&1; then missing+=(ripgrep); fi
if ! command -v bwrap >/dev/null 2>&1; then missing+=(bubblewrap); fi
if ! command -v git >/dev/null 2>&1; then missing+=(git); fi
if ! command -v tar >/dev/null 2>&1; then missing+=(tar); fi

if ((${#missing[@]} > 0)); then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "test.sh: the tests need ${missing[*]}; install them with your package manager" >&2
    exit 1
  fi
  # apt-get needs root: as root run it, else through sudo when that asks no password.
  as_root=()
  if [[ $(id -u) -ne 0 ]]; then
    if sudo -n true 2>/dev/null; then
      as_root=(sudo -n)
    else
      echo "test.sh: the tests need ${missing[*]}; run: sudo apt-get install ${missing[*]}" >&2
      exit 1
    fi
  fi
  echo "== apt-get install ${missing[*]}"
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

exec npx vitest run "$@"
