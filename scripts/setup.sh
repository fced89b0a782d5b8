#!/usr/bin/env bash
# setup.sh - install what gauntlet needs from Debian's packages (only what
# is missing), then configure and build into build/ (or $GL_BUILD_DIR).
# Extra arguments go to cmake (e.g. -DGL_SANITIZE=ON).
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(gcc make cmake pkg-config python3 curl
      libevent-dev libcurl4-openssl-dev libcjson-dev libssh2-1-dev
      libopenmpi-dev openmpi-bin libsqlite3-dev libgit2-dev libxxhash-dev
      openssh-server openssh-client iproute2 nftables iputils-ping procps
      slurm-wlm munge etcd-server etcd-client fio)
# Packages only the tests need (GL_TEST_PKGS=1, set by scripts/test.sh):
# Chromium renders report.html headless and prints report.pdf, which
# poppler-utils (pdfinfo, pdftotext, pdftoppm) check; clang-format checks the
# house style (test_format); clang and its runtime libraries
# build the libFuzzer targets (scripts/fuzz.sh): on Debian 12 clang-14's
# libclang_rt.fuzzer-x86_64.a and the sanitizer runtimes are in
# libclang-rt-14-dev, which clang-14 pulls in only as a recommendation.
# test_package builds the .deb (cpack needs dpkg-shlibdeps from dpkg-dev and
# file) and renders the man page (man-db, groff-base). prometheus gives
# promtool (test_promtool lints the live endpoint and unit-tests
# contrib/prometheus's alert rules) and python3-prometheus-client the strict
# OpenMetrics parser; only promtool is used, never the server.
# python3-jsonschema validates every report.json and manifest.json the tests
# write against docs/*.schema.json (lib.sh's finish, test_schema).
[ "${GL_TEST_PKGS:-0}" = 1 ] && PKGS+=(chromium poppler-utils clang clang-format libclang-rt-14-dev dpkg-dev file man-db groff-base
	prometheus python3-prometheus-client python3-jsonschema)
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup: these packages are missing and installing them needs root: ${missing[*]}" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	# Debian's prometheus package enables and starts its server (port 9090)
	# where systemd runs; the tests need only promtool: a server this
	# script started is stopped and disabled again. (In a container without
	# an init, policy-rc.d or the missing runlevel already keeps it stopped.)
	if [[ " ${missing[*]} " == *" prometheus "* ]] && command -v systemctl >/dev/null &&
		[ -d /run/systemd/system ]; then
		systemctl disable --now prometheus.service >/dev/null 2>&1 || true
	fi
fi

BUILD=${GL_BUILD_DIR:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$BUILD" -j "$(nproc)"
echo "setup: built $BUILD/gauntlet"
