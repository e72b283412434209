# Sourced by the analysis scripts that sweep sizes (compare_on_emulated_cluster, tune_on_emulated_cluster,
# tune_this_machine), so that -b, -e and -f are checked before anything runs, by the very function ddlrun
# and ddlsim sweep with: a one-rank ddlrun bench of the same sweep on threads (half a second).

# sweep_refusal BUILD MIN MAX FACTOR: nothing, status 0, where ddlrun takes the sweep; else its first
# complaint without the "ddlrun: " prefix (it names the flag), status 1.
sweep_refusal() {
  local complaint
  complaint="$("$1/runtime/ddlrun" bench --algorithm ring --transport threads --ranks 1 -b "$2" -e "$3" -f "$4" \
    -n 1 -w 0 -c 0 2>&1 > /dev/null)" && return 0
  complaint="${complaint%%$'\n'*}"
  echo "${complaint#ddlrun: }"
  return 1
}
