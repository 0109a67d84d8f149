#!/usr/bin/env bash
# CTest checks of the generated man page and bash completion
# (cmake/StribeckCliDocs.cmake):
#   cli_docs_check.sh man STRIBECK MAN_PAGE SOURCE_DIR
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
  # The roff source fits 80 columns (the help is wrapped there).
  long=$(awk 'length > 80 { print FNR ": " length " columns" }' "$page" | head -3)
  [ -z "$long" ] || fail "$page: lines over 80 columns: $long"
  src=${4:?SOURCE_DIR missing}
  section() { awk -v s="$1" '/^[A-Z][A-Z ]*$/ { on = ($0 == s); next } on' <<<"$text"; }
  # ENVIRONMENT names every variable the program reads (getenv in the
  # sources; the GPU emulator is a test build, not installed).
  env_text=$(section ENVIRONMENT)
  [ -n "$env_text" ] || fail "no ENVIRONMENT section"
  for v in $(grep -rhoE 'getenv\("[A-Z_]+"\)' "$src"/host "$src"/data "$src"/kernels "$src"/identification "$src"/report \
      --exclude-dir=emulation | sed -E 's/.*"(.*)".*/\1/' | sort -u) OMP_NUM_THREADS; do
    grep -qw "$v" <<<"$env_text" || fail "ENVIRONMENT lacks $v"
  done
  # EXAMPLES are commands of README.md's first hour, which
  # tests/readme_first_hour.sh runs as written.
  examples=$(section EXAMPLES | sed -e 's/^[[:space:]]*//' | awk '/\\$/ { sub(/ *\\$/, ""); printf "%s ", $0; next } { print }' |
    grep '^stribeck ' || true)
  [ "$(wc -l <<<"$examples")" -ge 5 ] || fail "fewer than 5 EXAMPLES: $examples"
  readme=$(sed -n '/^## Your first hour/,/^## /p' "$src/README.md" | sed -e 's/ *#.*//' |
    awk '/\\$/ { sub(/ *\\$/, ""); printf "%s ", $0; next } { print }' | sed -e 's/  */ /g')
  while IFS= read -r ex; do
    grep -qxF -- "$(sed -e 's/  */ /g' <<<"$ex")" <<<"$readme" || fail "EXAMPLES command not in README.md's first hour: $ex"
  done <<<"$examples"
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
  [ "$(try help sw)" = "sweep" ] || fail "'help sw' gives '$(try help sw)'"
  [ "$(try plot -w res)" = "residuals" ] || fail "'plot -w res' gives '$(try plot -w res)'"
  # What follows an option follows its value label: model ids after --model,
  # file names only after file options and as positionals, nothing after a
  # number; bash adds no file names of its own (no -o default/bashdefault).
  cd "$(mktemp -d)"
  touch log.h5 simscape.txt
  models=$("$exe" models --json | sed -n 's/^    "id": "\(.*\)",$/\1/p' | sort | tr '\n' ' ')
  [ "$(try sweep --model "" | tr ' ' '\n' | sort | tr '\n' ' ')" = "$models" ] ||
    fail "'sweep --model' gives '$(try sweep --model "")', not the models"
  [ "$(try identify -m simscape-cyl)" = "simscape-cylinder simscape-cylinder-il" ] ||
    fail "'identify -m simscape-cyl' gives '$(try identify -m simscape-cyl)'"
  if grep -qF simscape.txt <<<"$(try eval --model s)"; then fail "'eval --model s' offers file names"; fi
  [ "$(try identify --mass "")" = "" ] || fail "'identify --mass' gives '$(try identify --mass "")'"
  [ "$(try identify --fix "")" = "" ] || fail "'identify --fix' gives '$(try identify --fix "")'"
  [ "$(try identify log.h5 -o l)" = "log.h5" ] || fail "'identify -o l' gives '$(try identify log.h5 -o l)'"
  [ "$(try identify l)" = "log.h5" ] || fail "'identify l' gives '$(try identify l)'"
  [ "$(try identify --inertia l)" = "log.h5" ] || fail "'identify --inertia l' gives '$(try identify --inertia l)'"
  spec=$(complete -p stribeck)
  case "$spec" in *default*) fail "bash falls back to file names: $spec" ;; esac
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
