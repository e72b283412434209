// ddlscale_torch._C: the process group and the MPI bootstrap, as Python sees them. ddlscale_torch/__init__.py
// registers them with torch.distributed; nothing here is meant to be called by users but the group's own
// methods (set_algorithm, set_tuning, describe).

#include <torch/csrc/utils/pybind.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/build_info.hpp"
#include "common/human_units.hpp"
#include "common/invalid_argument.hpp"
#include "common/launcher_environment.hpp"
#include "common/machine_memory.hpp"
#include "runtime/pytorch/mpi_bootstrap.hpp"
#include "runtime/pytorch/process_group_ddlscale.hpp"

namespace py = pybind11;
using ddl::torch_backend::ProcessGroupDdlscale;

PYBIND11_MODULE(_C, module) {
  module.doc() = "ddlscale's collectives as a torch.distributed process group (see ddlscale_torch)";
  // c10d::ProcessGroup, the base class below, is registered with pybind11 by torch.distributed.
  py::module::import("torch.distributed");
  using release_gil = py::call_guard<py::gil_scoped_release>;

  py::class_<ProcessGroupDdlscale, c10d::ProcessGroup, c10::intrusive_ptr<ProcessGroupDdlscale>>(
      module, "ProcessGroupDdlscale",
      "This process as rank `rank` of `size`, over the MPI job's ranks `world_ranks` (all, when empty). "
      "Collective. Made by torch.distributed for backend \"ddlscale\".")
      .def(py::init([](int rank, int size, const std::vector<int>& worldRanks, double timeoutSeconds) {
             const auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(timeoutSeconds));
             return c10::make_intrusive<ProcessGroupDdlscale>(rank, size, worldRanks, timeout);
           }),
           py::arg("rank"), py::arg("size"), py::arg("world_ranks"), py::arg("timeout_s"), release_gil())
      .def(py::init([](int rank, int size, const std::string& rootAddress, double timeoutSeconds) {
             const auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(timeoutSeconds));
             return c10::make_intrusive<ProcessGroupDdlscale>(rank, size, rootAddress, timeout);
           }),
           py::arg("rank"), py::arg("size"), py::arg("root_address"), py::arg("timeout_s"), release_gil(),
           "This process as rank `rank` of `size` over TCP, without MPI: rank 0 listens at `root_address` "
           "(\"host:port\"), the others connect there. Collective.")
      .def("set_algorithm", &ProcessGroupDdlscale::setAlgorithm, py::arg("collective"), py::arg("name"),
           py::arg("options") = "", release_gil(),
           "Collective: runs the collective's later calls with algorithm `name` and its options "
           "(\"dims=2x2\", \"ranks-per-node=4 inner=ring\"), as ddlrun's --algorithm and its flags.")
      .def("set_tuning", &ProcessGroupDdlscale::setTuning, py::arg("collective"), py::arg("path"), release_gil(),
           "Collective: a tuning table from `ddlsim tune --json` chooses the algorithm per call, by size.")
      .def("describe", &ProcessGroupDdlscale::describe, py::arg("collective"), py::arg("bytes"), release_gil(),
           "What runs a call of `bytes` bytes now, as \"ddl 2x2\".")
      .def("shutdown", &ProcessGroupDdlscale::shutdown, release_gil(),
           "Collective: completes what is in flight and frees the communicator.");

  module.def("initialise_mpi", [] {
    const auto world = ddl::torch_backend::initialiseMpi();
    return py::make_tuple(world.rank, world.size, world.threadMultiple);
  }, "Initialises MPI unless it is, and returns (rank, size, whether collectives run on a thread of their own).");
  module.def("share_store_address", [](int port) {
    ddl::torch_backend::StoreAddress address;
    {
      py::gil_scoped_release released;  // a collective: the other ranks may take their time
      address = ddl::torch_backend::shareStoreAddress(port);
    }
    return py::make_tuple(address.host, address.port);
  }, py::arg("port"), "Collective: rank 0's store port in, (address to reach it by, port) out.");
  module.def("build_info", [] {
    return py::make_tuple(std::string(ddl::ddlscaleVersion()), std::string(ddl::ddlscaleCommit()));
  }, "(version, commit) of the ddlscale this was built from, as every results file records them.");
  // ddlscale_torch.memory's estimates are judged by the rule and in the words ddlrun's are: this machine's
  // available memory (its cgroup's, DDLSCALE_MEMORY_BYTES's) and this process's address space (ulimit -v).
  module.def("memory_refusal", [](double bytes, const std::string& what, double addressSpaceBytes) -> std::optional<std::string> {
    try {
      ddl::requireMemory(bytes, "", what, addressSpaceBytes);
    } catch (const ddl::InvalidArgument& refusal) {
      return refusal.message();
    }
    return std::nullopt;
  }, py::arg("bytes"), py::arg("what"), py::arg("address_space_bytes"),
     "None if this machine can hold `bytes` (this process mapping `address_space_bytes` of it), else why not, with the numbers.");
  module.def("available_memory_bytes", &ddl::availableMemoryBytes, "What this machine can give a job now, as ddlrun reckons it.");
  module.def("format_bytes", [](double bytes) { return ddl::formatBytes(bytes); }, "Bytes as ddlrun writes them: 1.2 GB.");
  module.def("ranks_on_this_host", &ddl::launcherRanksOnThisHost,
             "How many ranks of this job run on this machine, as its launcher says (torchrun, Open MPI, MPICH, Slurm); 1 "
             "where none does.");
  module.def("interface_addresses", &ddl::torch_backend::interfaceAddresses);
  module.def("address_to_reach", &ddl::torch_backend::addressToReach, py::arg("root_addresses"), py::arg("own_addresses"));
  module.def("finalise", [] {
    ProcessGroupDdlscale::shutdownAll();
    ddl::torch_backend::finaliseMpiIfOurs();
  }, release_gil(), "At exit: shuts down every group still alive, then MPI if this module started it.");
}
