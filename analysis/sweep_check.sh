# Sourced by the analysis scripts that run ddlrun on many ranks of this machine (compare_on_emulated_cluster,
# tune_on_emulated_cluster, tune_this_machine, validate_calibration), so that what they would run is checked
# before anything runs, by ddlrun's own checks and memory estimate: `ddlrun ... --dry-run` (no MPI, no buffers).

# ddlrun_refusal BUILD RANKS ARGUMENTS...: nothing, status 0, where `ddlrun ARGUMENTS --dry-run` holds with a
# RANKS-th of this machine's available memory (every emulated node's rank runs here, each a process of its
# own, and ddlrun's estimate counts the one rank it checks); else its first complaint without the "ddlrun: "
# prefix (it names the flag or file), status 1.
ddlrun_refusal() {
  local build="$1" ranks="$2" complaint memory="${DDLSCALE_MEMORY_BYTES:-}"
  shift 2
  if [ -z "$memory" ]; then memory=$(awk '/^MemAvailable:/ {printf "%d", $2 * 1024}' /proc/meminfo); fi
  complaint="$(DDLSCALE_MEMORY_BYTES=$((memory / ranks)) "$build/runtime/ddlrun" "$@" --transport threads --ranks 1 \
    --dry-run 2>&1 > /dev/null)" && return 0
  complaint="${complaint%%$'\n'*}"
  complaint="${complaint#ddlrun: }"
  if [ "$ranks" -gt 1 ]; then complaint="$complaint (each of the $ranks ranks this machine would hold gets 1/$ranks of it)"; fi
  echo "$complaint"
  return 1
}

# sweep_refusal BUILD MIN MAX FACTOR [RANKS]: ddlrun_refusal of a ring allreduce's sweep -b MIN -e MAX -f FACTOR,
# RANKS (default 1) at once here: -b, -e and -f are checked by the very function ddlrun sweeps with.
sweep_refusal() {
  ddlrun_refusal "$1" "${5:-1}" bench --algorithm ring -b "$2" -e "$3" -f "$4"
}
