#!/bin/bash
# test_package.sh - the installable package (cmake/package.cmake) of the
# build this test belongs to (GL_BINARY_DIR):
#   - `cmake --install --prefix P` lays out bin/, share/man/man1,
#     share/doc/gauntlet and share/gauntlet/scenarios, every scenario and
#     document there, and no RPATH into the build or source tree;
#   - under umask 000 `cmake --install` lays down the same modes as under
#     the default umask, no directory or file writable by group or others
#     (the scenario library's scenarios run faults as root);
#   - `cpack -G DEB`, run under umask 000, builds gauntlet_VERSION_ARCH.deb
#     whose control fields are the project's, holding the same files under
#     /usr, stripped, with no entry writable by group or others (dpkg-deb -c);
#   - its Depends: runtime packages only (no -dev), exactly the packages
#     dpkg -S says own the libraries the binaries link (NEEDED, resolved by
#     ldd; ground truth the packaging did not compute);
#   - the extracted usr/bin/gauntlet validates every extracted scenario and
#     runs a 3 s null soak to exit 0 with report.json, away from the tree;
#   - the extracted man page renders without a groff or man warning, and
#     tests/scripts/man_check.py finds every command, option, exit code and
#     environment variable of the program in it (and nothing it dropped);
#     a copy missing one option, one variable or one exit code fails it.
. "$(dirname "$0")/lib.sh"
B=${GL_BINARY_DIR:?GL_BINARY_DIR: the build directory (set by tests/package.cmake)}
CPACK=${GL_CPACK:-cpack}
CMAKE=${GL_CMAKE:-cmake}
for t in "$CPACK" "$CMAKE" dpkg-deb dpkg-shlibdeps dpkg-query file readelf ldd man groff; do
	command -v "$t" >/dev/null || skip "$t not found (cpack comes with cmake; scripts/setup.sh installs dpkg-dev, file, man-db and groff-base with GL_TEST_PKGS=1)"
done
[ -f "$B/CPackConfig.cmake" ] || skip "$B/CPackConfig.cmake missing: configure with cmake (cmake/package.cmake)"
t0=$(date +%s%N)

# ---- cmake --install --------------------------------------------------------
"$CMAKE" --install "$B" --prefix "$T/prefix" >"$T/install.log" 2>&1
rc=$?
check "cmake --install exits 0 (exit $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || cat "$T/install.log"
P=$T/prefix
check "bin/gauntlet installed" [ -x "$P/bin/gauntlet" ]
if [ -x "$B/gauntlet-train" ]; then
	check "bin/gauntlet-train installed (built here: OpenMPI found)" [ -x "$P/bin/gauntlet-train" ]
else
	check "no bin/gauntlet-train (not built here: no OpenMPI)" [ ! -e "$P/bin/gauntlet-train" ]
fi
# gzip -9n: no file name (FLG bit 3), no time stamp (MTIME 0), the slowest
# level (XFL 2); the header as RFC 1952 lays it out
gz_9n() { python3 -c 'import sys; h = open(sys.argv[1], "rb").read(10); sys.exit(not (h[:3] == b"\x1f\x8b\x08" and not h[3] & 8 and h[4:8] == bytes(4) and h[8] == 2))' "$1"; }
check "share/man/man1/gauntlet.1.gz is docs/gauntlet.1, gzip-compressed" \
	bash -c 'gzip -dc "$1" | cmp -s "$2" -' _ "$P/share/man/man1/gauntlet.1.gz" "$GL_SOURCE_DIR/docs/gauntlet.1"
check "...by gzip -9n (no name, no time stamp: reproducible)" gz_9n "$P/share/man/man1/gauntlet.1.gz"
check "...and no uncompressed man page beside it" bash -c '! ls "$1"/share/man/man1/*.1 2>/dev/null | grep -q .' _ "$P"
if [ -x "$B/gauntlet-train" ]; then
	check "share/man/man1/gauntlet-train.1.gz points to gauntlet.1" \
		bash -c 'gzip -dc "$1" | grep -qx ".so man1/gauntlet.1"' _ "$P/share/man/man1/gauntlet-train.1.gz"
	check "...by gzip -9n" gz_9n "$P/share/man/man1/gauntlet-train.1.gz"
fi
check "share/gauntlet/scenarios is scenarios/, every file" diff -r "$GL_SOURCE_DIR/scenarios" "$P/share/gauntlet/scenarios"
check "share/gauntlet/contrib is contrib/ (dashboard, alert rules), every file" diff -r "$GL_SOURCE_DIR/contrib" "$P/share/gauntlet/contrib"
check "share/doc/gauntlet holds README.md" cmp -s "$GL_SOURCE_DIR/README.md" "$P/share/doc/gauntlet/README.md"
missing=
for f in "$GL_SOURCE_DIR"/docs/*.md; do
	cmp -s "$f" "$P/share/doc/gauntlet/${f##*/}" || missing+=" ${f##*/}"
done
check "share/doc/gauntlet holds every docs/*.md${missing:+ (missing:$missing)}" [ -z "$missing" ]
check "...and not the man page" [ ! -e "$P/share/doc/gauntlet/gauntlet.1" ]
# no RPATH/RUNPATH into the build or the source tree
rpaths() { readelf -d "$1" 2>/dev/null | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]/\1/p'; }
for f in "$P"/bin/*; do
	r=$(rpaths "$f")
	check "installed ${f##*/}: no RPATH into $B or $GL_SOURCE_DIR (has: ${r:-none})" \
		bash -c '! grep -qF -e "$1" -e "$2" <<< "$3"' _ "$B" "$GL_SOURCE_DIR" "$r"
done

# ---- under umask 000 ----------------------------------------------------------
# A builder whose umask is 000 must not get a world-writable scenario
# library or bin/. Only the umask of the install itself matters: install()
# sets the mode of every file it copies, and the directories it creates
# take the install's umask unless CMAKE_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
# says otherwise (measured: a tree cloned, configured and built under umask
# 000 installs the very modes this build does under umask 000). So this
# build's install, and the cpack below, run under umask 000.
# modes DIR: "MODE TYPE PATH" of everything under DIR, DIR itself included
modes() { (cd "$1" && find . -printf '%m %y %p\n' | sort -k3); }
# loose DIR: what under DIR (itself included) group or others may write
loose() { find "$1" ! -type l -perm /022 -printf '%m %y %p\n'; }
t1=$(date +%s%N)
(umask 000 && "$CMAKE" --install "$B" --prefix "$T/prefix000") >"$T/install000.log" 2>&1
rc=$?
check "umask 000: cmake --install exits 0 (exit $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || cat "$T/install000.log"
l=$(loose "$T/prefix000")
check "umask 000: cmake --install leaves nothing group- or world-writable$([ -n "$l" ] && printf ' (%d: %s)' "$(wc -l <<<"$l")" "$(head -3 <<<"$l" | tr '\n' ';')")" [ -z "$l" ]
check "umask 000: ...the same modes as the install under the default umask, every file and directory" \
	diff <(modes "$P") <(modes "$T/prefix000")
check "umask 000: ...directories 0755, bin/ files 0755, every other file 0644" bash -c \
	'[ -z "$(find "$1" \( -type d ! -perm 0755 \) -o \( -path "$1/bin/*" ! -perm 0755 \) -o \( -type f ! -path "$1/bin/*" ! -perm 0644 \))" ]' _ "$T/prefix000"
ms=$((($(date +%s%N) - t1) / 1000000))
echo "   (umask 000 install: $((ms / 1000)).$(printf %03d $((ms % 1000))) s)"

# ---- cpack -G DEB, under umask 000 ------------------------------------------------
mkdir -p "$T/pkg"
(umask 000 && cd "$T/pkg" && "$CPACK" -G DEB --config "$B/CPackConfig.cmake" -B "$T/pkg") >"$T/cpack.log" 2>&1
rc=$?
check "cpack -G DEB exits 0 (exit $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || cat "$T/cpack.log"
DEB=$(ls "$T"/pkg/gauntlet_*.deb 2>/dev/null | head -1)
check "a gauntlet_*.deb was made ($(basename "${DEB:-none}"))" [ -n "$DEB" ]
[ -n "$DEB" ] || finish
version=$(sed -n 's/^project(gauntlet VERSION \([0-9.]*\).*/\1/p' "$GL_SOURCE_DIR/CMakeLists.txt")
arch=$(dpkg --print-architecture)
check "file name gauntlet_${version}_$arch.deb" [ "$(basename "$DEB")" = "gauntlet_${version}_$arch.deb" ]
# what dpkg would lay down: no entry of data.tar writable by group or others
dpkg-deb -c "$DEB" >"$T/deb.contents"
l=$(awk '$1 !~ /^l/ && (substr($1, 6, 1) == "w" || substr($1, 9, 1) == "w")' "$T/deb.contents")
check "the .deb (made under umask 000): no entry writable by group or others ($(wc -l <"$T/deb.contents") entries$([ -n "$l" ] && printf '; %d: %s' "$(wc -l <<<"$l")" "$(awk '{print $1, $6}' <<<"$l" | head -3 | tr '\n' ';')"))" [ -z "$l" ]
check "...its directories drwxr-xr-x, usr/bin/* -rwxr-xr-x, every other file -rw-r--r--" bash -c \
	'! awk '\''($1 ~ /^d/ && $1 != "drwxr-xr-x") || ($6 ~ /^\.\/usr\/bin\/./ && $1 != "-rwxr-xr-x") || ($1 ~ /^-/ && $6 !~ /^\.\/usr\/bin\// && $1 != "-rw-r--r--") { bad = 1 } END { exit !bad }'\'' "$1"' _ "$T/deb.contents"
field() { dpkg-deb -f "$DEB" "$1"; }
check "Package: gauntlet" [ "$(field Package)" = gauntlet ]
check "Version: $version (the project's)" [ "$(field Version)" = "$version" ]
check "Architecture: $arch (dpkg's)" [ "$(field Architecture)" = "$arch" ]
check "Maintainer, Section and Description set" bash -c '[ -n "$1" ] && [ -n "$2" ] && [ -n "$3" ]' _ \
	"$(field Maintainer)" "$(field Section)" "$(field Description)"
X=$T/x
dpkg-deb -x "$DEB" "$X"
check "dpkg-deb -x extracts it" [ -x "$X/usr/bin/gauntlet" ]
# the same files as cmake --install, under /usr
(cd "$P" && find . -type f | sort) >"$T/installed.list"
(cd "$X/usr" && find . -type f | sort) >"$T/deb.list"
check "the .deb holds what cmake --install does, under /usr ($(wc -l <"$T/deb.list") files)" \
	diff "$T/installed.list" "$T/deb.list"
for f in "$X"/usr/bin/*; do
	r=$(rpaths "$f")
	check "packaged ${f##*/}: no RPATH into $B or $GL_SOURCE_DIR (has: ${r:-none})" \
		bash -c '! grep -qF -e "$1" -e "$2" <<< "$3"' _ "$B" "$GL_SOURCE_DIR" "$r"
	check "packaged ${f##*/}: stripped, no build path in it" bash -c '! grep -qaF "$1" "$2"' _ "$B" "$f"
done

# ---- Depends -----------------------------------------------------------------
depends=$(field Depends)
echo "   (Depends: $depends)"
# package names, versions and alternatives dropped
dep_names=$(tr ',|' '\n\n' <<< "$depends" | sed 's/(.*)//; s/:.*//; s/ //g' | grep . | sort -u)
check "Depends computed (not empty)" [ -n "$dep_names" ]
check "Depends: no -dev package ($(grep -- '-dev$' <<< "$dep_names" | tr '\n' ' '))" not grep -q -- '-dev$' <<< "$dep_names"
for want in '^libevent-2\.1-[0-9]' '^libcurl(4|3-gnutls|3-nss)$' '^libcjson1$' '^libsqlite3-0$' '^libssh2-1$' '^libgit2-[0-9]'; do
	check "Depends: a runtime package matching $want" grep -qE -- "$want" <<< "$dep_names"
done
if [ -e "$X/usr/bin/gauntlet-train" ]; then
	check "Depends: libopenmpi (gauntlet-train is in it)" grep -qE '^libopenmpi[0-9]' <<< "$dep_names"
fi
# Ground truth: each packaged binary's NEEDED libraries, where ldd finds
# them, and the package dpkg says owns that file (merged /usr: the path as
# found, resolved, or with /usr taken off or put on; one dpkg-query for all).
variants() { local r; r=$(readlink -f "$1"); printf '%s\n' "$1" "$r" "${1#/usr}" "/usr$1" "${r#/usr}"; }
: >"$T/libs"
for f in "$X"/usr/bin/*; do
	for so in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		path=$(ldd "$f" | awk -v s="$so" '$1 == s && $2 == "=>" { print $3 }')
		if [ -z "$path" ] || [ "$path" = "not" ]; then
			bad "${f##*/}: ldd cannot find $so"
			continue
		fi
		echo "$path" >>"$T/libs"
	done
done
sort -u -o "$T/libs" "$T/libs"
declare -A owner_of
while IFS= read -r line; do
	owner_of[${line#*: }]=${line%%: *}
done < <(while read -r l; do variants "$l"; done <"$T/libs" | sort -u | xargs dpkg-query -S 2>/dev/null)
: >"$T/truth"
unowned=
while read -r l; do
	o=
	for c in $(variants "$l"); do
		o=${owner_of[$c]:-}
		[ -n "$o" ] && break
	done
	if [ -n "$o" ]; then echo "${o%%:*}" >>"$T/truth"; else unowned+=" $l"; fi
done <"$T/libs"
truth=$(sort -u "$T/truth")
[ -n "$unowned" ] && echo "   (linked but owned by no Debian package, so in no Depends:$unowned)"
echo "   (dpkg -S of the linked libraries: $(echo $truth))"
check "Depends names exactly the packages owning the linked libraries" [ "$dep_names" = "$truth" ]
[ "$dep_names" = "$truth" ] || diff <(echo "$truth") <(echo "$dep_names")

# ---- the extracted binary, away from the tree ------------------------------------
G=$X/usr/bin/gauntlet
S=$X/usr/share/gauntlet/scenarios
check "extracted gauntlet version: $version" grep -q "^gauntlet $version " <("$G" version)
n=0
shopt -s nullglob
for f in "$S"/*.json; do
	# a scenario that reads a lab inventory: against test_validate's sample
	# of the one `gauntlet lab up` writes
	inv=()
	grep -q '"inventory"' "$f" &&
		inv=(--set "inventory=$GL_SOURCE_DIR/tests/scenarios/lab-inventory.json" --allow-root "$GL_SOURCE_DIR/tests/scenarios")
	(cd "$T" && "$G" validate "$f" "${inv[@]}") >"$T/validate.log" 2>&1
	rc=$?
	check "extracted validate ${f##*/}${inv:+ (sample inventory)}: exit $rc, valid" \
		bash -c '[ $1 -eq 0 ] && grep -q ": valid$" "$2"' _ $rc "$T/validate.log"
	[ $rc -eq 0 ] || tail -5 "$T/validate.log"
	n=$((n + 1))
done
shopt -u nullglob
check "extracted scenarios validated: $n (null-soak.json among them)" [ -f "$S/null-soak.json" ] && [ $n -ge 5 ]
cat >"$T/null3.json" <<EOF
{
  "name": "package-null",
  "description": "the packaged binary's 3 s null soak (test_package)",
  "duration": "3s",
  "window": "250ms",
  "hosts": { "localhost": { "local": true } },
  "workloads": { "null": { "rate": 100 } },
  "phases": [ { "name": "steady", "for": "3s" } ],
  "faults": [ { "id": "null-1", "at": "1s", "for": "500ms", "kind": "null", "target": "localhost",
                "params": { "marker": "$T/null.marker" } } ],
  "targets": {
    "steady": { "null.ticks": ">= 10" },
    "degraded": { "null.ticks": ">= 1" },
    "recovery": { "recovery_s": "<= 2", "restore_s": "<= 2" }
  }
}
EOF
(cd "$T" && "$G" run "$T/null3.json" --out "$T/run") >"$T/run.log" 2>&1
rc=$?
check "extracted gauntlet run: 3 s null soak exits 0 (exit $rc)" [ $rc -eq 0 ]
if [ $rc -ne 0 ]; then
	grep -v ' info  window ' "$T/run.log" | tail -20
	json "$T/run/report.json" '[t for t in r["targets"] if not t["pass"]]'
fi
check "...report.json written, verdict pass" json "$T/run/report.json" 'r["verdict"] == "pass"'
check "...its null fault injected and reverted" json "$T/run/report.json" '[f["state"] for f in r["faults"]] == ["reverted"]'
check "...the marker removed" [ ! -e "$T/null.marker" ]

# ---- the man page --------------------------------------------------------------------
M=$X/usr/share/man/man1/gauntlet.1.gz
check "man page at usr/share/man/man1/gauntlet.1.gz, gzip -9n" gz_9n "$M"
gzip -dc "$M" >"$T/gauntlet.1"
check "man page's .TH names the project's version (gauntlet $version)" grep -q "^\.TH GAUNTLET 1 [0-9-]* \"gauntlet $version\"" "$T/gauntlet.1"
if [ -e "$X/usr/bin/gauntlet-train" ]; then
	# man -l resolves .so from the directory above man1, as man does
	(cd "$X/usr/share/man" && MANWIDTH=80 man -l man1/gauntlet-train.1.gz 2>/dev/null) >"$T/train-man.txt"
	check "man -l gauntlet-train.1.gz shows the GAUNTLET-TRAIN section" grep -q '^GAUNTLET-TRAIN$' "$T/train-man.txt"
fi
groff -man -ww -z "$T/gauntlet.1" 2>"$T/groff.err"
check "groff -man -ww: no warning$( [ -s "$T/groff.err" ] && echo ": $(head -3 "$T/groff.err")")" [ ! -s "$T/groff.err" ]
MANWIDTH=80 man --warnings -l -Tutf8 "$M" >"$T/man.utf8" 2>"$T/man.err"
rc=$?
check "man -l renders it (exit $rc, no warning$( [ -s "$T/man.err" ] && echo ": $(head -3 "$T/man.err")"))" \
	bash -c '[ $1 -eq 0 ] && [ ! -s "$2" ] && [ -s "$3" ]' _ $rc "$T/man.err" "$T/man.utf8"
MANWIDTH=80 man -l "$M" >"$T/man.txt" 2>/dev/null
train=
[ -x "$X/usr/bin/gauntlet-train" ] && train=$X/usr/bin/gauntlet-train
python3 "$GL_SOURCE_DIR/tests/scripts/man_check.py" "$T/man.txt" "$G" "$GL_SOURCE_DIR" "$train" >"$T/mancheck.log" 2>&1
rc=$?
cat "$T/mancheck.log"
check "man_check: every command, option, exit code and variable in the page (exit $rc)" [ $rc -eq 0 ]
[ -n "$train" ] || part_skip "man_check of gauntlet-train" "gauntlet-train not built (OpenMPI not found)"
# the check fails on a page missing one thing of each kind, naming it
plant() { # plant NAME SED-EXPR WANT: a copy of the page edited by SED-EXPR fails naming WANT
	sed -e "$2" "$T/gauntlet.1" >"$T/$1.1"
	MANWIDTH=80 man -l "$T/$1.1" >"$T/$1.txt" 2>/dev/null
	python3 "$GL_SOURCE_DIR/tests/scripts/man_check.py" "$T/$1.txt" "$G" "$GL_SOURCE_DIR" "$train" >"$T/$1.log" 2>&1
	check "man_check fails on a page $1 (exit $?, want 1), naming it" \
		bash -c '[ $1 -eq 1 ] && grep -qF -- "$2" "$3"' _ $? "$3" "$T/$1.log"
}
plant "without compare --quiet" '/^\.B \\-\\-quiet$/d' "compare --quiet: not in"
plant "without GL_LAB_DIR" 's/^\.B GL_LAB_DIR$/.B GL_LABDIR/' "variable GL_LAB_DIR: not in ENVIRONMENT"
plant "without exit code 3" 's/^\.B 3$/.B 7/' "exit code 3: no entry"
plant "with a dropped option" 's/^\.B \\-\\-quiet$/.B \\-\\-quieter/' "--quieter: in the page's COMMANDS, printed by no usage text"

ms=$((($(date +%s%N) - t0) / 1000000))
echo "   (test_package: $((ms / 1000)).$(printf %03d $((ms % 1000))) s)"
finish
