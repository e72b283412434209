#include "runtime/mpi/eager_limit.hpp"

namespace ddl {
namespace {

// The value of the size_t-like control variable `name`, or 0 where the library has none by that name.
std::size_t readSizeVariable(const char* name) {
  int index = -1;
  if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS || index < 0) return 0;
  char found[256];
  char description[8];
  int nameLength = sizeof found, descriptionLength = sizeof description, verbosity = 0, binding = 0, scope = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_T_enum enumeration{};
  if (MPI_T_cvar_get_info(index, found, &nameLength, &verbosity, &type, &enumeration, description, &descriptionLength,
                          &binding, &scope) != MPI_SUCCESS)
    return 0;
  MPI_T_cvar_handle handle{};
  int count = 0;
  if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) != MPI_SUCCESS) return 0;
  std::size_t value = 0;
  if (count == 1) {
    if (type == MPI_UNSIGNED_LONG || type == MPI_UNSIGNED_LONG_LONG || type == MPI_COUNT) {
      unsigned long long read = 0;
      if (MPI_T_cvar_read(handle, &read) == MPI_SUCCESS) value = static_cast<std::size_t>(read);
    } else if (type == MPI_INT || type == MPI_UNSIGNED) {
      int read = 0;
      if (MPI_T_cvar_read(handle, &read) == MPI_SUCCESS && read > 0) value = static_cast<std::size_t>(read);
    }
  }
  MPI_T_cvar_handle_free(&handle);
  return value;
}

}  // namespace

std::size_t sharedMemoryEagerPayload() {
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return 0;
  std::size_t limit = readSizeVariable("btl_vader_eager_limit");
  if (limit == 0) limit = readSizeVariable("btl_sm_eager_limit");
  MPI_T_finalize();
  return limit > kEagerHeaderBytes ? limit - kEagerHeaderBytes : 0;
}

std::vector<bool> ranksSharingMemory(MPI_Comm communicator) {
  int size = 0;
  MPI_Comm_size(communicator, &size);
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(communicator, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Group all = MPI_GROUP_NULL, local = MPI_GROUP_NULL;
  MPI_Comm_group(communicator, &all);
  MPI_Comm_group(node, &local);
  int localSize = 0;
  MPI_Group_size(local, &localSize);
  std::vector<int> localRanks(static_cast<std::size_t>(localSize)), inCommunicator(static_cast<std::size_t>(localSize));
  for (int r = 0; r < localSize; ++r) localRanks[static_cast<std::size_t>(r)] = r;
  MPI_Group_translate_ranks(local, localSize, localRanks.data(), all, inCommunicator.data());
  std::vector<bool> sharing(static_cast<std::size_t>(size), false);
  for (int rank : inCommunicator)
    if (rank >= 0 && rank < size) sharing[static_cast<std::size_t>(rank)] = true;
  MPI_Group_free(&local);
  MPI_Group_free(&all);
  MPI_Comm_free(&node);
  return sharing;
}

}  // namespace ddl
