#include "common/mpi_command_line.hpp"

#include <cstdint>

namespace ddl {
namespace {

// The arguments as one text to compare: each ended by a NUL, which no argument holds.
std::string joined(const std::vector<std::string>& arguments) {
  std::string text;
  for (const std::string& argument : arguments) text += argument + '\0';
  return text;
}

// The arguments as a person would type them.
std::string shown(std::string text) {
  if (!text.empty()) text.pop_back();
  for (char& c : text)
    if (c == '\0') c = ' ';
  return "'" + text + "'";
}

}  // namespace

std::optional<std::string> commandLineDisagreement(MPI_Comm communicator, const std::vector<std::string>& arguments,
                                                   const MpiWait& wait) {
  constexpr const char* kWhat = "the ranks' comparison of their command lines";
  int rank = 0, size = 1;
  MPI_Comm_rank(communicator, &rank);
  MPI_Comm_size(communicator, &size);
  const std::string mine = joined(arguments);
  // Rank 0's line goes to every rank, which compares it with its own; the lowest that differs is found.
  std::uint64_t length = mine.size();
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibcast(&length, 1, MPI_UINT64_T, 0, communicator, &request);
  wait(request, kWhat);
  std::string first = rank == 0 ? mine : std::string(length, '\0');
  MPI_Ibcast(first.data(), static_cast<int>(length), MPI_CHAR, 0, communicator, &request);
  wait(request, kWhat);
  const int differs = first == mine ? size : rank;
  int lowest = size;
  MPI_Iallreduce(&differs, &lowest, 1, MPI_INT, MPI_MIN, communicator, &request);
  wait(request, kWhat);
  if (lowest == size) return std::nullopt;
  // The differing rank's line, for rank 0 to name (the others need only know that the job stops). Its
  // length goes first, in a message of its own, and the line is received into exactly that much.
  std::string theirs;
  std::uint64_t bytes = mine.size();
  if (rank == lowest) {
    MPI_Isend(&bytes, 1, MPI_UINT64_T, 0, 0, communicator, &request);
    wait(request, kWhat);
    MPI_Isend(mine.data(), static_cast<int>(bytes), MPI_CHAR, 0, 0, communicator, &request);
    wait(request, kWhat);
  } else if (rank == 0) {
    MPI_Irecv(&bytes, 1, MPI_UINT64_T, lowest, 0, communicator, &request);
    wait(request, kWhat);
    theirs.resize(bytes);
    MPI_Irecv(theirs.data(), static_cast<int>(bytes), MPI_CHAR, lowest, 0, communicator, &request);
    wait(request, kWhat);
  }
  return "the ranks were started with different command lines, so they would run different experiments against "
         "each other: rank 0 runs " + shown(first) + (rank == 0 ? ", rank " + std::to_string(lowest) + " " + shown(theirs) : "") +
         " (start every rank with the same arguments)";
}

}  // namespace ddl
