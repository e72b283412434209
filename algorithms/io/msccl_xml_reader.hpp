#pragma once
// MSCCL's XML algorithm format read back, in the subset msccl_xml.hpp writes: <algo> of <gpu>s of
// threadblocks <tb> of <step>s, every attribute the writer writes and no other. It is what
// msccl_xml_check.hpp executes; anything outside the subset is refused rather than guessed at, since a
// checker that skips what it does not understand would pass what it never looked at.

#include <cstdint>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ddl {

// What is wrong with a document, one line naming the element (gpu, tb, step) at fault.
struct MscclXmlFault : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class MscclStepType : std::uint8_t { Send, Receive, ReceiveReduce, Nop };

// Twelve bytes: a 1024-GPU ring has four million steps, and on some machines fresh memory costs more than
// the reading. Offsets and counts are in chunks of the input buffer "i", the only one the subset uses.
struct MscclStep {
  std::int32_t offset = 0;     // srcoff of an "s", dstoff of an "r", both of an "rrc" (in place in the subset)
  std::uint32_t count : 30 = 0;  // cnt: 0 for a nop
  std::uint32_t kind : 2 = 0;    // an MscclStepType
  std::int32_t dependency = -1;  // the step depid and deps name, as an index of MscclDocument::steps, or -1

  MscclStepType type() const { return static_cast<MscclStepType>(kind); }
};

struct MscclThreadblock {
  int sendPeer = -1;     // send=: the GPU its "s" steps send to, or -1
  int receivePeer = -1;  // recv=: the GPU its "r" and "rrc" steps receive from, or -1
  int channel = 0;
  std::int32_t firstStep = 0;  // its steps are MscclDocument::steps[firstStep, firstStep + stepCount)
  std::int32_t stepCount = 0;
};

struct MscclGpu {
  int firstThreadblock = 0;  // MscclDocument::threadblocks[firstThreadblock, + threadblockCount)
  int threadblockCount = 0;
};

struct MscclDocument {
  std::int32_t chunks = 0;  // nchunksperloop, below 2^30
  int channels = 0;
  std::vector<MscclGpu> gpus;
  std::vector<MscclThreadblock> threadblocks;
  std::deque<MscclStep> steps;  // grows without moving: a vector would copy, and fault in, twice its size
};

// Reads a document in pieces, as it is written, so that a 1024-GPU ring's 500 MB need not be held whole,
// and checks what needs no execution: ids in order, peers and channels that exist, step ranges inside the
// buffer, dependencies on an existing step of another threadblock of the same GPU that is marked hasdep.
// Throws MscclXmlFault.
class MscclXmlReader {
 public:
  MscclXmlReader();
  ~MscclXmlReader();
  void read(std::string_view piece);
  MscclDocument finish();  // after the last piece

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The threadblock (an index of MscclDocument::threadblocks) that holds step `step`.
int mscclThreadblockOf(const MscclDocument& document, std::int32_t step);
// "gpu 3 tb 1 step 7": where messages point.
std::string mscclStepName(const MscclDocument& document, std::int32_t step);

}  // namespace ddl
