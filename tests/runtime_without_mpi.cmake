# The tests of a build without MPI or SimGrid (the GPU machine's, scripts/build gpu), which the full build
# runs too: the runtime's transports of one process, and the GPU runtime.

# The runtime without MPI: number formats, the bench's fills and checks, how the runner cuts steps into
# messages, the in-process transport with ranks as threads, and the TCP transport with ranks as threads on
# loopback.
add_executable(runtime_tests runtime/narrow_floats_test.cpp runtime/bench_collective_test.cpp runtime/in_process_transport_test.cpp
                             runtime/compute_emulator_test.cpp runtime/tcp_transport_test.cpp runtime/program_runner_test.cpp
                             runtime/gpus_of_this_process_test.cpp runtime/host_reduce_test.cpp)
target_link_libraries(runtime_tests PRIVATE ddl_runtime GTest::gtest_main)
target_include_directories(runtime_tests PRIVATE ${PROJECT_SOURCE_DIR})
gtest_discover_tests(runtime_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)

# The GPU runtime: built wherever CUDA is, run where a GPU is, skipped (with the reason) elsewhere. NCCL
# here is nccl-threads, ranks as threads of this process (one GPU each); under mpirun, tests/CMakeLists.txt.
if(DDLSCALE_CUDA)
  add_executable(gpu_tests runtime/gpu/reduce_kernels_test.cpp runtime/gpu/gpu_runtime_test.cpp runtime/gpu/nccl_threads_test.cpp)
  target_link_libraries(gpu_tests PRIVATE ddl_runtime GTest::gtest_main)
  target_include_directories(gpu_tests PRIVATE ${PROJECT_SOURCE_DIR})
  gtest_discover_tests(gpu_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS gpu TIMEOUT 600)
endif()
