#!/usr/bin/env bash
# The differential oracle (test/oracle) runs commands for real under bash and dash, traced by strace, and its
# corpus uses these programs (and plugins/shell/test/programs/realRun.test.ts runs gawk); a missing one makes the oracle test fail, never skip. So `pnpm test` installs
# them on a fresh Debian machine: apt-get only when something is missing (a second run installs nothing), and
# through sudo when not root. The OS sandbox's tests (packages/sandbox, `toolgate run`) run real bubblewrap
# and create a python venv: bubblewrap and python3-venv are installed the same way. @toolgate/store-redis's
# tests start real redis-server processes on loopback (their own ports, never the system service), and the
# console's tests drive Debian's chromium through playwright-core: both come from apt the same way. The
# sandbox's network bridge is compiled by @toolgate/sandbox's build (gcc, libc6-dev for the static C library);
# its perl fallback needs perl-base, always installed on Debian.
set -euo pipefail
PKGS="strace dash gawk git curl wget jq sqlite3 zip unzip xxd file bsdextrautils make perl python3 python3-venv openssh-client binutils bubblewrap redis-server chromium fonts-dejavu-core gcc libc6-dev"
BINS="strace dash gawk git curl wget jq sqlite3 zip unzip xxd file column make perl python3 ssh strings bwrap redis-server chromium cc"
missing=""
for bin in $BINS; do command -v "$bin" >/dev/null 2>&1 || missing="$missing $bin"; done
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing="$missing python3-venv"
[ -z "$missing" ] && exit 0
echo "test tools missing:$missing — installing with apt-get" >&2
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $PKGS >/dev/null
