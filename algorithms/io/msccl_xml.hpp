#pragma once
// A schedule in MSCCL's XML algorithm format, as msccl-tools writes it (its "old format": <algo> of <gpu>s
// of threadblocks <tb> of <step>s), so that an allreduce ddlscale designed and verified can be loaded by
// the MSCCL runtime (MSCCL_XML_FILES) or read by msccl-tools.
//
// The mapping, one rank's program at a time:
// - one threadblock per stream of the program: a send stream becomes <tb send="peer" recv="-1">, a receive
//   stream <tb send="-1" recv="peer">, both on the stream's channel; a threadblock runs its steps in order,
//   as a stream posts them;
// - send -> "s", receive-copy -> "r", receive-reduce -> "rrc" (receive, add the local chunk, write it back);
// - a dependency on a step of another stream -> depid (its threadblock) and deps (its step); a step that
//   waits for more than one gets one "nop" step per extra dependency just before it, as msccl-tools does;
//   a dependency an earlier step of the same threadblock already waited for is dropped; hasdep="1" marks
//   every step some other step waits for;
// - the buffer is cut into nchunksperloop equal chunks, the greatest common divisor of every offset and
//   count, and the algorithm is in place on the input buffer "i".
//
// A receive-reduce's transfer may start before its dependencies complete (see step.hpp); MSCCL's rrc waits
// for them before it receives, which orders more and changes no result.
//
// `ddlsim schedule --msccl-xml` reads back what this writes, as it writes it, and runs it under MSCCL's rules
// (msccl_xml_check.hpp): a file that does not compute the allreduce is never put out.

#include <iosfwd>
#include <string>
#include <vector>

#include "algorithms/schedule/schedule.hpp"

namespace ddl {

// The MSCCL runtime's limits (msccl.h: MSCCL_MAX_NUM_STEPS, MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL).
inline constexpr int kMscclMaxStepsPerThreadblock = 256;
inline constexpr int kMscclMaxThreadblocksPerChannel = 32;

struct MscclExport {
  // What the MSCCL runtime would refuse (too many steps in a threadblock, too many threadblocks on a
  // channel), one line each; the XML is written all the same, for msccl-tools and for reading.
  std::vector<std::string> runtimeLimitsExceeded;
};

// Writes `schedule` (an allreduce) as MSCCL XML. Throws InvalidArgument("--msccl-xml", ...) for a
// reduce-scatter or all-gather, whose in-place MSCCL forms alias part of one buffer into another.
MscclExport writeMscclXml(std::ostream& out, const Schedule& schedule);

}  // namespace ddl
