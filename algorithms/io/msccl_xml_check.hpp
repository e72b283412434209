#pragma once
// Whether an MSCCL XML document computes an allreduce, decided by running it on symbols under MSCCL's
// rules, not by trusting the writer (msccl_xml.hpp) that made it: `ddlsim schedule --msccl-xml` reads back
// what it wrote, through msccl_xml_read_back.hpp, and puts out nothing this refuses.
//
// The rules: each threadblock runs its steps in order; a step first waits for its dependency (depid, deps),
// a step of another threadblock of the same GPU; "s" sends cnt chunks from srcoff to the threadblock's send
// peer, "r" receives from its recv peer into dstoff, "rrc" receives, adds the chunks at dstoff and writes
// the sums back (srcoff = dstoff: the writer reduces in place), "nop" only waits. Messages from one GPU to another on a channel are received in the
// order they were sent, each by a receive of the same cnt; on a GPU one threadblock at most sends to a peer
// on a channel, and one receives from it, or the order would be the runtime's guess.
//
// Each chunk holds a sum of pseudo-random 64-bit contributions, one per (GPU, chunk), so that a missing,
// doubled or misplaced contribution changes it. The document is run twice: every send as early as it can
// run, then as late, so that a send missing its wait for a reduction, or a receive missing its wait for
// the send of the chunk it overwrites, shows as a wrong sum. Two unordered reductions into one chunk sum
// right in any order these runs pick (each step is atomic here): tests/sim/msccl_xml_test.py checks that
// the steps of a GPU that touch a chunk are ordered.

#include <optional>
#include <string>
#include <string_view>

namespace ddl {

// Nothing when `xml` is an allreduce MSCCL would run to completion with every chunk of every GPU holding
// every GPU's contribution once and no message left unreceived; else one line naming what is wrong (the
// gpu, tb and step, or the gpu and chunks).
std::optional<std::string> mscclXmlFault(std::string_view xml);

struct MscclDocument;
// The same of a document msccl_xml_reader.hpp has read; throws MscclXmlFault with the line.
void checkMscclDocument(const MscclDocument& document);

}  // namespace ddl
