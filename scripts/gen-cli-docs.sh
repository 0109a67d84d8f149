#!/usr/bin/env bash
# Generates, from the built CLI's own help, the man page and the bash
# completion that `cmake --install` installs (cmake/StribeckCliDocs.cmake):
#
#   scripts/gen-cli-docs.sh man STRIBECK OUT.1          # needs help2man (Debian: help2man)
#   scripts/gen-cli-docs.sh completion STRIBECK OUT     # bash only
#
# Both read `stribeck --help` and `stribeck COMMAND --help`, so they follow
# the options as built: nothing here lists an option by hand.
set -euo pipefail
what=${1:?usage: gen-cli-docs.sh man|completion STRIBECK OUT}
exe=${2:?STRIBECK missing}
out=${3:?OUT missing}

# The subcommands, in the order `stribeck --help` lists them.
commands() {
  "$exe" --help | awk '/^[Ss][Uu][Bb][Cc][Oo][Mm][Mm][Aa][Nn][Dd][Ss]:/ {on = 1; next} on && /^  [a-z]/ {print $1}'
}

# Each option's help on one line (its description's wrapped lines, which
# start at column 31, joined to it; after a comma without a space).
joined() {
  awk '/^                              / { sub(/^ +/, ""); line = line (line ~ /,$/ ? "" : " ") $0; next }
       { if (line != "") print line; line = $0 } END { if (line != "") print line }'
}

case "$what" in
man)
  command -v help2man >/dev/null || { echo "gen-cli-docs: help2man not found (apt-get install help2man)" >&2; exit 2; }
  inc=$(mktemp)
  trap 'rm -f "$inc"' EXIT
  {
    echo "[NAME]"
    echo "stribeck \\- friction models, sweeps and identification"
    echo "for hydraulic and mechanical drives"
    echo "[COMMANDS]"
    for c in $(commands); do
      echo ".SS \"stribeck $c\""
      echo ".nf"
      # roff: a backslash is \e; a line starting with . or ' is escaped.
      "$exe" "$c" --help | sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
      echo ".fi"
    done
    echo "[EXIT STATUS]"
    echo "0 success; 1 usage error; 2 bad input or an output that cannot be written;"
    echo "3 internal error; 130, 143, 129 ended by SIGINT, SIGTERM, SIGHUP; 141 standard"
    echo "output closed by its reader."
    # Read by the program (getenv in the sources; tests/cli_docs_check.sh
    # checks that every one is here).
    echo "[ENVIRONMENT]"
    env_var() { printf '.TP\n.B %s\n%s\n' "$1" "$2"; }
    env_var OMP_NUM_THREADS "CPU threads of sweeps, ensembles, eval and fits (default: the CPUs the
process may use)."
    env_var STRIBECK_CPU_ISA "SIMD level of the CPU sweep and ensemble lanes: x86-64-v4, x86-64-v3,
generic or scalar (default: the best this processor runs)."
    env_var STRIBECK_GLOG "1 keeps the messages of glog (what Ceres says during fits); otherwise they
are silenced."
    env_var STRIBECK_ALLOW_EXTERNAL_DATA "1 lets HDF5 inputs read external links and external
storage in other files (refused by default)."
    env_var STRIBECK_HDF5_METADATA_TIMEOUT "Seconds one HDF5 library call on a damaged file may take
before the run stops naming the file (default 20; 0 turns the limit off)."
    env_var STRIBECK_TEST_KILL_AT_WRITE "For the project's own tests only: N kills the process before
the Nth write to a checkpointed result file, as a crash at that instant
would (docs/reliability.md)."
    env_var TMPDIR "Directory of plot's temporary files (default /tmp)."
    # Commands of README.md's first hour (tests/cli_docs_check.sh checks
    # that each is there, and tests/readme_first_hour.sh runs those).
    echo "[EXAMPLES]"
    echo "Run in the source tree, which holds data/examples/ and examples/."
    example() { printf '.PP\n%s\n.PP\n.RS\n.nf\n%s\n.fi\n.RE\n' "$1" "$(sed 's/\\/\\e/g' <<<"$2")"; }
    example "Every model with its equation, parameters, units and ranges:" "stribeck models"
    example "A model along a bundled trace:" "stribeck eval --model simscape-translational --param F_brk=30 \\
  --input data/examples/sine_trace.csv --output force.csv"
    example "Identify the friction of a cylinder over all experiments of a log:" \
      "stribeck identify data/examples/cylinder_plateaus.h5 \\
  --model simscape-cylinder --fix v_th=2e-4 --inertia --starts 8 \\
  --json fit.json -o fit.h5"
    example "Look at the fit in a browser:" \
      "stribeck report fit.h5 --log data/examples/cylinder_plateaus.h5 -o fit.html"
    example "Carry the fit into Modelica at the log's operating points:" \
      "stribeck export-params fit.json --to modelica \\
  --data data/examples/cylinder_plateaus.h5 -o Friction.mo"
    example "Simulate a stick-slip rig with LuGre friction:" \
      "stribeck simulate examples/simulate_stick_slip_lugre.toml -o stick_slip.h5"
    example "Sweep a parameter space against a trace:" "stribeck sweep examples/sweep_cylinder_grid.toml -o grid.h5"
    echo "[SEE ALSO]"
    echo "The documentation in docs/ of the source tree: cli.md, sweep.md, dynamics.md,"
    echo "identification.md, data-format.md, reliability.md."
  } > "$inc"
  help2man --no-info --section 1 --source "stribeck" --manual "Stribeck manual" \
    --include "$inc" --output "$out.tmp" "$exe"
  mv "$out.tmp" "$out"
  ;;
completion)
  # What follows an option comes from its value label in the help (app/cli/
  # main.cpp): {a,b} its choices, MODEL the model ids, a label naming FILE or
  # DIR file names; any other value (a number, NAME=VALUE) nothing, so bash
  # offers no file names there. Positionals are files.
  models=$("$exe" models --json | sed -n 's/^    "id": "\(.*\)",$/\1/p' | tr '\n' ' ')
  [ -n "$models" ] || { echo "gen-cli-docs: no model ids from '$exe models --json'" >&2; exit 2; }
  {
    echo "# bash completion for stribeck (generated by scripts/gen-cli-docs.sh from the CLI's help)"
    echo "_stribeck() {"
    echo '  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=${COMP_WORDS[1]} opts=""'
    echo "  if [[ \$COMP_CWORD -eq 1 ]]; then"
    echo "    COMPREPLY=(\$(compgen -W \"$(commands | tr '\n' ' ')help --help --version\" -- \"\$cur\"))"
    echo "    return"
    echo "  fi"
    echo "  if [[ \$cmd == help ]]; then"
    echo "    [[ \$COMP_CWORD -eq 2 ]] && COMPREPLY=(\$(compgen -W \"$(commands | tr '\n' ' ')\" -- \"\$cur\"))"
    echo "    return"
    echo "  fi"
    echo '  case "$cmd" in'
    for c in $(commands); do
      help=$("$exe" "$c" --help)
      opts=$(printf '%s\n' "$help" | grep -oE '^ +(-[A-Za-z],)?(-[A-Za-z]|--[a-z][a-z0-9-]*)(,--?[a-z][a-z0-9-]*)*' |
        tr ',' '\n' | tr -d ' ' | sort -u | tr '\n' ' ')
      echo "    $c) opts=\"$opts\""
      echo '      case "$prev" in'
      # NAMES LABEL: the option's names and the first word of its value label.
      printf '%s\n' "$help" | sed -nE 's/^ +((-[A-Za-z],)?--[a-z][a-z0-9-]*(,-[A-Za-z])?) ([^ ]+).*/\1 \4/p' |
        while read -r names label; do
          case "$label" in
          Excludes: | Needs:) ;; # a flag (-q,--quiet Excludes: --verbose)
          \{*\}) echo "        ${names//,/|}) COMPREPLY=(\$(compgen -W \"$(sed 's/[{}]//g; s/,/ /g' <<<"$label")\" -- \"\$cur\")); return ;;" ;;
          MODEL*) echo "        ${names//,/|}) COMPREPLY=(\$(compgen -W \"$models\" -- \"\$cur\")); return ;;" ;;
          *FILE* | *DIR*) echo "        ${names//,/|}) COMPREPLY=(\$(compgen -f -- \"\$cur\")); return ;;" ;;
          [A-Z]*)
            # Choices too many for the label's line are in the description
            # (-w,--what WHAT: One of {fit,...}).
            choices=$(printf '%s\n' "$help" | joined | grep -E "^ +$names " | grep -oE 'One of \{[^}]*\}' | head -1 |
              sed 's/One of //; s/[{}]//g; s/,/ /g' || true)
            echo "        ${names//,/|}) COMPREPLY=(\$(compgen -W \"$choices\" -- \"\$cur\")); return ;;" ;;
          esac
        done
      echo '      esac ;;'
    done
    echo '  esac'
    echo '  if [[ $cur == -* ]]; then'
    echo '    COMPREPLY=($(compgen -W "$opts" -- "$cur"))'
    echo '  else'
    echo '    COMPREPLY=($(compgen -f -- "$cur"))'
    echo '  fi'
    echo "}"
    echo "complete -o filenames -F _stribeck stribeck"
  } > "$out.tmp"
  mv "$out.tmp" "$out"
  ;;
*) echo "gen-cli-docs: unknown kind '$what' (man, completion)" >&2; exit 2 ;;
esac
