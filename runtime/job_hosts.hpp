#pragma once
// Which machines a job's ranks run on, as its results record it: a host is a host name and a network
// namespace, since ranks in separate namespaces (the emulated cluster's nodes) have networks of their own.

#include "runtime/world.hpp"

namespace ddl {

struct JobHosts {
  int hosts = 0;         // distinct (host name, network namespace) pairs
  int ranksPerHost = 0;  // the most ranks on one of them
};

// Every rank calls it together; rank 0, which writes the results, gets the answer, the others zeros.
JobHosts jobHosts(World& world);

}  // namespace ddl
