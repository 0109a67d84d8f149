#!/usr/bin/env bash
# CTest checks of the generated man page and bash completion
# (cmake/StribeckCliDocs.cmake):
#   cli_docs_check.sh man STRIBECK MAN_PAGE
#   cli_docs_check.sh completion STRIBECK COMPLETION
#   cli_docs_check.sh install BUILD_DIR
set -euo pipefail
kind=$1
fail() { echo "cli_docs_check: $*" >&2; exit 1; }
commands() { "$1" --help | awk '/^[Ss][Uu][Bb][Cc][Oo][Mm][Mm][Aa][Nn][Dd][Ss]:/ {on = 1; next} on && /^  [a-z]/ {print $1}'; }
case "$kind" in
man)
  exe=$2 page=$3
  [ -s "$page" ] || fail "$page: missing or empty"
  command -v man >/dev/null || { echo "man not installed; skipped" >&2; exit 77; }
  text=$(MANWIDTH=100 man -l "$page" 2>/dev/null | col -b)
  n=0
  for c in $(commands "$exe"); do
    grep -q "stribeck $c" <<<"$text" || fail "the man page has no section for '$c'"
    # Every option of the command's help is in its section.
    for opt in $("$exe" "$c" --help | grep -oE '^ +(-[a-zA-Z],)?--[a-z][a-z0-9-]*' | sed 's/.*--/--/'); do
      grep -q -- "$opt" <<<"$text" || fail "the man page lacks $opt of '$c'"
    done
    n=$((n + 1))
  done
  [ "$n" -ge 10 ] || fail "only $n commands found"
  grep -q "$("$exe" --version)" <<<"$text" || grep -q "stribeck" <<<"$text" || fail "no version"
  # roff without warnings.
  if command -v groff >/dev/null; then
    warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1 || true)
    [ -z "$warnings" ] || fail "groff warnings: $warnings"
  fi
  echo "man page: $n commands with every option"
  ;;
completion)
  exe=$2 file=$3
  [ -s "$file" ] || fail "$file: missing or empty"
  # shellcheck disable=SC1090
  source "$file"
  complete -p stribeck >/dev/null || fail "no completion registered for stribeck"
  try() {  # try WORD... : COMPREPLY for the last word
    COMP_WORDS=(stribeck "$@")
    COMP_CWORD=$#
    COMPREPLY=()
    _stribeck
    echo "${COMPREPLY[*]}"
  }
  [ "$(try sw)" = "sweep" ] || fail "'sw' completes to '$(try sw)', not 'sweep'"
  all=$(try "")
  for c in $(commands "$exe"); do grep -qw "$c" <<<"$all" || fail "'$c' missing from the commands"; done
  [ "$(try sweep --dev)" = "--device" ] || fail "'sweep --dev' gives '$(try sweep --dev)'"
  [ "$(try sweep --device "")" = "auto gpu cpu" ] || fail "'sweep --device' gives '$(try sweep --device "")'"
  [ "$(try map --reduce m)" = "min max mean" ] || fail "'map --reduce m' gives '$(try map --reduce m)'"
  grep -qw -- "--json" <<<"$(try merge --j)" || fail "'merge --j' gives '$(try merge --j)'"
  grep -qw -- "--quiet" <<<"$(try eval --q)" || fail "'eval --q' gives '$(try eval --q)'"
  echo "completion: commands, options and choices complete"
  ;;
install)
  build=$2
  prefix=$(mktemp -d)
  trap 'rm -rf "$prefix"' EXIT
  cmake --install "$build" --prefix "$prefix" >/dev/null
  [ -x "$prefix/bin/stribeck" ] || fail "no bin/stribeck installed"
  [ -s "$prefix/share/bash-completion/completions/stribeck" ] || fail "no bash completion installed"
  if [ "${4:-}" = "with-man" ] || [ -n "${3:-}" ]; then
    [ -s "$prefix/share/man/man1/stribeck.1" ] || fail "no man page installed"
  fi
  echo "install: binary, man page and completion in place"
  ;;
*) fail "unknown check '$kind'" ;;
esac
