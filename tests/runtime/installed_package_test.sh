#!/usr/bin/env bash
# libddlscale as a framework meets it: installed by `cmake --install` into a prefix of its own, the example
# program (runtime/library/example) is built against the installed package twice, with CMake's
# find_package(ddlscale) and with pkg-config, and each build runs under mpirun (and once over TCP, without
# it) and must leave every rank with exact results; a program without MPI builds against the header alone; where the PyTorch backend was built, its installed package trains DDP as gloo does.
#
#   installed_package_test.sh BUILD_DIR SOURCE_DIR MPIRUN [MPIRUN FLAGS...]
set -euo pipefail
build="$1"; source="$2"; mpirun=("${@:3}")
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

cmake --install "$build" --prefix "$prefix" > "$work/install.log"
test -f "$prefix/include/ddlscale/ddlscale.h"
libdir="$(dirname "$(find "$prefix" -name libddlscale.so -print -quit)")"  # lib, or lib/x86_64-linux-gnu under /usr
test -f "$libdir/cmake/ddlscale/ddlscaleConfig.cmake"
# Only the API is exported: no symbol of the project's C++ or of its libraries leaks out, code or data, weak or
# unique (runtime/library/ddlscale.map).
exported="$(nm -D --defined-only "$libdir/libddlscale.so" | awk '{print $3}')"
leaked="$(grep -v '^ddl_' <<< "$exported" | grep -v '^_init$\|^_fini$\|^_edata$\|^_end$\|^__bss_start$' || true)"
if [ -n "$leaked" ]; then echo "libddlscale exports more than ddl_*:"; head -5 <<< "$leaked"; exit 1; fi
grep -qx ddl_allreduce <<< "$exported"

# CMake: find_package(ddlscale) in a C project.
cmake -S "$source/runtime/library/example" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" > "$work/configure.log"
cmake --build "$work/cmake-build" > "$work/build.log"
"${mpirun[@]}" -np 4 "$work/cmake-build/allreduce_example" ddl dims=2x2 < /dev/null
"${mpirun[@]}" -np 3 "$work/cmake-build/allreduce_example" halving-doubling < /dev/null
# Without MPI: one process per rank, rank 0 listening on a port that was free a moment ago; every rank must
# exit 0 (its own result exact).
port="$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
ranks=()
for rank in 0 1 2; do
  "$work/cmake-build/allreduce_example" --tcp "$rank" 3 "127.0.0.1:$port" ddl dims=3 < /dev/null & ranks+=($!)
done
for pid in "${ranks[@]}"; do wait "$pid"; done

# A program without MPI, whose compiler is given no MPI include path and told there is none
# (DDLSCALE_NO_MPI): the header declares the TCP communicator and the collectives without <mpi.h>. One rank
# over TCP reduces integers and exits 0 where the result is exact.
cat > "$work/tcp_only.c" <<'C'
#include <ddlscale/ddlscale.h>
#include <stdio.h>
#ifdef MPI_VERSION
#error "ddlscale.h included <mpi.h> though DDLSCALE_NO_MPI was defined"
#endif
int main(int argc, char** argv) {
  ddl_comm comm;
  long long values[3] = {5, -7, 9}, shard = 0;
  if (argc < 2 || ddl_comm_init_tcp(0, 1, argv[1], &comm) != DDL_SUCCESS) return fprintf(stderr, "%s\n", ddl_last_error()), 2;
  if (ddl_allreduce(comm, values, values, 3, DDL_INT64, DDL_MAX) != DDL_SUCCESS) return 3;
  if (ddl_reduce_scatter(comm, values + 1, &shard, 1, DDL_INT64, DDL_AVG) != DDL_SUCCESS) return 4;
  ddl_comm_destroy(comm);
  return values[0] == 5 && values[1] == -7 && shard == -7 ? 0 : 1;
}
C
cc -DDDLSCALE_NO_MPI -I"$prefix/include" -o "$work/tcp_only" "$work/tcp_only.c" -L"$libdir" -lddlscale -Wl,-rpath,"$libdir"
port="$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$work/tcp_only" "127.0.0.1:$port" < /dev/null

# pkg-config: the flags alone, as a Makefile would take them.
export PKG_CONFIG_PATH="$libdir/pkgconfig"
# shellcheck disable=SC2046  # the flags are words
cc -o "$work/pkg-config-example" "$source/runtime/library/example/allreduce_example.c" \
  $(pkg-config --cflags --libs ddlscale) -Wl,-rpath,"$libdir"
"${mpirun[@]}" -np 2 "$work/pkg-config-example" < /dev/null

# The PyTorch backend, where it was built: the installed package, found by python3 under the prefix alone,
# trains DDP to gloo's parameters.
if [ -d "$prefix/lib/python3/dist-packages/ddlscale_torch" ]; then
  "${mpirun[@]}" -np 2 -x PYTHONPATH="$prefix/lib/python3/dist-packages" /usr/bin/python3 \
    "$source/tests/pytorch/ddp_matches_gloo.py" < /dev/null > "$work/ddp.log"
fi
