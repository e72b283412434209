# Sourced by the analysis scripts that sweep sizes (compare_on_emulated_cluster, tune_on_emulated_cluster,
# tune_this_machine), so that -b, -e and -f are checked before anything runs, by the very function ddlrun
# and ddlsim sweep with: a one-rank ddlrun bench of the same sweep on threads (half a second).

# sweep_refusal BUILD MIN MAX FACTOR [RANKS]: nothing, status 0, where ddlrun takes the sweep; else its first
# complaint without the "ddlrun: " prefix (it names the flag), status 1. RANKS (default 1) is how many ranks
# this machine will hold at once (every emulated node's): each is held to a RANKS-th of the memory
# available, through ddlrun's own estimate (DDLSCALE_MEMORY_BYTES), which counts the one rank it runs.
sweep_refusal() {
  local complaint ranks="${5:-1}" memory="${DDLSCALE_MEMORY_BYTES:-}"
  if [ -z "$memory" ]; then memory=$(awk '/^MemAvailable:/ {printf "%d", $2 * 1024}' /proc/meminfo); fi
  complaint="$(DDLSCALE_MEMORY_BYTES=$((memory / ranks)) "$1/runtime/ddlrun" bench --algorithm ring --transport threads \
    --ranks 1 -b "$2" -e "$3" -f "$4" -n 1 -w 0 -c 0 2>&1 > /dev/null)" && return 0
  complaint="${complaint%%$'\n'*}"
  complaint="${complaint#ddlrun: }"
  if [ "$ranks" -gt 1 ]; then complaint="$complaint (each of the $ranks ranks this machine would hold gets 1/$ranks of it)"; fi
  echo "$complaint"
  return 1
}
