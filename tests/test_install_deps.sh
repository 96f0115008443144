#!/bin/sh
# scripts/install-deps and scripts/install-dev-kit with a fake dpkg-query
# that reports two packages missing and a fake apt-get that records its
# arguments: not root, one message on stderr lists the missing packages
# and the command that installs them, exit status 1, apt-get untouched;
# as root, apt-get update and install of exactly those packages, its
# output shown; nothing missing, silence and exit 0. Run unprivileged
# through setpriv when the test runs as root; the scripts run from a copy
# in the test's own folder, which that user can read whatever the mode of
# the checkout's folders (mktemp -d makes them 0700).
# usage: tests/test_install_deps.sh SOURCE_DIR
set -u
src=$(cd "${1:-$(dirname "$0")/..}" && pwd)
tmp=$(mktemp -d /tmp/rodsim_deps_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
passed=0
failed=0
check() { # check NAME CONDITION...
  name=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $name"
    sed 's/^/  out: /' "$tmp/out"
    sed 's/^/  err: /' "$tmp/err"
  fi
}
mkdir "$tmp/bin" "$tmp/scripts"
cp "$src/scripts/install-deps" "$src/scripts/install-dev-kit" "$tmp/scripts/"
chmod 755 "$tmp/scripts" "$tmp/scripts/install-deps" "$tmp/scripts/install-dev-kit"
cat >"$tmp/bin/dpkg-query" <<'SH'
#!/bin/sh
# the last argument is the package
for p; do :; done
case " $RODSIM_MISSING " in
  *" $p "*) echo "unknown ok not-installed"; exit 1 ;;
esac
printf 'install ok installed'
SH
cat >"$tmp/bin/apt-get" <<'SH'
#!/bin/sh
echo "$*" >>"$RODSIM_APT_LOG"
echo "fake apt-get: $*"
SH
chmod 755 "$tmp/bin/dpkg-query" "$tmp/bin/apt-get"
export RODSIM_APT_LOG="$tmp/apt.log"
export PATH="$tmp/bin:$PATH"

# as someone else than root (nobody, when the test is root)
unprivileged() {
  if [ "$(id -u)" -eq 0 ]; then
    setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
  else
    "$@"
  fi
}
one_line() { [ "$(wc -l <"$tmp/err")" -eq 1 ]; }
no_traceback() { ! grep -qi "traceback\|not found" "$tmp/err"; }

export RODSIM_MISSING="check libpng-dev"
touch "$RODSIM_APT_LOG" && chmod 666 "$RODSIM_APT_LOG"
unprivileged "$tmp/scripts/install-deps" >"$tmp/out" 2>"$tmp/err"
check "install-deps without root exits 1" test $? -eq 1
check "one message" one_line
check "it lists the packages and the command" \
  grep -q "not installed: libpng-dev check; .*apt-get install libpng-dev check" \
  "$tmp/err"
check "no traceback" no_traceback
check "apt-get not run" test ! -s "$RODSIM_APT_LOG"

export RODSIM_MISSING="libpng-dev valgrind"
unprivileged "$tmp/scripts/install-dev-kit" >"$tmp/out" 2>"$tmp/err"
check "install-dev-kit without root exits 1" test $? -eq 1
check "one message for both lists" one_line
check "it lists build and kit packages" \
  grep -q "developer kit needs .*: libpng-dev valgrind; " "$tmp/err"
check "apt-get not run by the kit" test ! -s "$RODSIM_APT_LOG"

export RODSIM_MISSING=""
unprivileged "$tmp/scripts/install-dev-kit" >"$tmp/out" 2>"$tmp/err"
check "nothing missing: exit 0" test $? -eq 0
check "nothing missing: silent" test ! -s "$tmp/out" -a ! -s "$tmp/err"

if [ "$(id -u)" -eq 0 ]; then
  export RODSIM_MISSING="check libpng-dev"
  "$tmp/scripts/install-deps" >"$tmp/out" 2>"$tmp/err"
  check "as root: exit 0" test $? -eq 0
  check "as root: apt-get update, install of the missing" \
    test "$(cat "$RODSIM_APT_LOG")" = "update
install -y libpng-dev check"
  check "as root: apt-get's output shown" \
    grep -q "fake apt-get: install -y libpng-dev check" "$tmp/out"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
