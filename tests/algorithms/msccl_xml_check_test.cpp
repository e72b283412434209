// What `ddlsim schedule --msccl-xml` checks before it puts a file out (algorithms/io/msccl_xml_check.hpp):
// every allreduce's export is accepted, and an export broken one way at a time is refused, for that reason.

#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "algorithms/io/msccl_xml.hpp"
#include "algorithms/io/msccl_xml_check.hpp"
#include "algorithms/io/msccl_xml_read_back.hpp"
#include "common/invalid_argument.hpp"
#include "common/output_file.hpp"
#include "tests/algorithms/schedule_test_support.hpp"

namespace ddl::testing {
namespace {

std::string exportOf(const Schedule& schedule) {
  std::ostringstream out;
  writeMscclXml(out, schedule);
  return out.str();
}

// Options that make each algorithm do its most: two-level grids, two ranks a node, two channels, chunks of
// 64 bytes that pipeline a buffer of a few hundred.
AlgorithmOptions busiestOptions(const AlgorithmDefinition& algorithm, int ranks) {
  AlgorithmOptions options;
  if (algorithm.options & kDims) options.dims = ranks % 2 == 0 && ranks > 2 ? std::vector<int>{2, ranks / 2} : std::vector<int>{ranks};
  if (algorithm.options & kRanksPerNode) options.ranksPerNode = ranks % 2 == 0 ? 2 : 1;
  if (algorithm.options & kChunkBytes) options.chunkBytes = 64;
  if (algorithm.options & kChannels) options.channels = 2;
  return options;
}

TEST(MscclXmlCheck, AcceptsTheExportOfEveryAllreduce) {
  std::set<std::string_view> checked;
  for (const AlgorithmDefinition* algorithm : allAlgorithms()) {
    // NVLS reduces in a switch, which MSCCL's XML has no participant for: its export is refused
    // (NcclNvls.HasNoMscclForm).
    if (algorithm->collective != CollectiveKind::Allreduce || algorithm->reducesInSwitch()) continue;
    for (int ranks : {1, 2, 3, 4, 5, 6, 8, 12}) {
      const AlgorithmOptions options = busiestOptions(*algorithm, ranks);
      try {
        checkOptions(*algorithm, ranks, options);
      } catch (const InvalidArgument&) {
        continue;  // a rank count the algorithm does not take
      }
      // An element for each rank on each of two channels, and a prime count no block count divides.
      for (Elements elements : {Elements{2 * ranks}, Elements{101}}) {
        const Schedule schedule = ddl::makeSchedule(*algorithm, {CollectiveKind::Allreduce, ranks, elements, 4}, options);
        EXPECT_EQ(mscclXmlFault(exportOf(schedule)), std::nullopt) << schedule.description() << " on " << ranks << " ranks";
      }
      checked.insert(algorithm->name);
    }
  }
  for (std::string_view name : {"ring", "ddl", "halving-doubling", "recursive-doubling", "double-binary-tree"})
    EXPECT_TRUE(checked.contains(name)) << name;
}

// With one element a rank, nccl-ring's second channel has empty blocks: steps of no elements, which MSCCL's
// format cannot hold (its parser indexes by cnt - 1). The writer refuses them as bad input, naming the size.
TEST(MscclXmlWriter, RefusesTheEmptyTransfersOfATinyBufferSplitOverChannels) {
  try {
    exportOf(allreduce("nccl-ring", 4, 4, {.ranksPerNode = 2, .channels = 2}));
    FAIL() << "exported";
  } catch (const InvalidArgument& refusal) {
    EXPECT_EQ(refusal.field(), "--bytes");
    EXPECT_NE(std::string(refusal.what()).find("16 bytes leave rank 0 a step of no elements on channel"), std::string::npos) << refusal.what();
  }
}

TEST(MscclXmlCheck, FollowsChunkRangesWhereTheBufferHasMillionsOfChunks) {
  // 1'000'003 elements on 5 ranks: chunks of one element, far more than the schedule has steps.
  EXPECT_EQ(mscclXmlFault(exportOf(allreduce("ring", 5, 1'000'003))), std::nullopt);
}

// The ring allreduce on 4 ranks, one float each, as the writer puts it, one element a line: GPU g's tb 0
// receives from g-1 (three rrc, then three r), its tb 1 sends to g+1 (six s), each step waiting for the one
// before it on the other threadblock.
struct Ring {
  std::vector<std::string> lines;

  Ring() {
    std::istringstream text(exportOf(allreduce("ring", 4, 4)));
    for (std::string line; std::getline(text, line);) lines.push_back(line);
  }
  // The value of `name`="..." in `line` (the name with what comes before it: "<gpu id"), if it is there.
  // (Not std::regex: GCC 12 warns of its own std::function inside it under -O1 and the sanitizers.)
  static std::optional<std::string> attribute(const std::string& line, const std::string& name) {
    const std::size_t at = line.find(name + "=\"");
    if (at == std::string::npos) return std::nullopt;
    const std::size_t start = at + name.size() + 2;
    return line.substr(start, line.find('"', start) - start);
  }
  // The line of step `step` of threadblock `tb` of GPU `gpu`, or of the threadblock itself.
  std::string& line(int gpu, int tb, int step = -1) {
    int atGpu = -1, atTb = -1;
    for (std::string& line : lines) {
      if (const auto id = attribute(line, "<gpu id")) atGpu = std::stoi(*id);
      if (const auto id = attribute(line, "<tb id")) atTb = std::stoi(*id);
      const std::string start = step < 0 ? "<tb " : "<step s=\"" + std::to_string(step) + "\"";
      if (atGpu == gpu && atTb == tb && line.find(start) != std::string::npos) return line;
    }
    throw std::logic_error("no such line");
  }
  void set(int gpu, int tb, int step, const std::string& attribute, const std::string& value) {
    std::string& at = line(gpu, tb, step);
    const std::string name = " " + attribute + "=\"";
    const std::size_t start = at.find(name) + name.size();
    at.replace(start, at.find('"', start) - start, value);
  }
  void erase(int gpu, int tb, int step) { lines.erase(std::find(lines.begin(), lines.end(), line(gpu, tb, step))); }
  std::string text() const {
    std::string result;
    for (const std::string& line : lines) result += line + "\n";
    return result;
  }
};

TEST(MscclXmlCheck, AcceptsTheRingTheBreaksBelowStartFrom) { EXPECT_EQ(mscclXmlFault(Ring().text()), std::nullopt); }

struct Break {
  std::string name;
  std::function<void(Ring&)> make;
  std::vector<std::string> faultMentions;
};

// Each way of breaking the ring, and what the refusal must say.
const std::vector<Break> kBreaks{
    {"AChangedCountIsACountMismatch", [](Ring& ring) { ring.set(0, 1, 2, "cnt", "2"); },
     {"gpu 1 tb 0 step 2 receives cnt=1 where its matching send, gpu 0 tb 1 step 2, has cnt=2"}},
    {"ATransferOfNoChunksIsRefused", [](Ring& ring) { ring.set(0, 1, 2, "cnt", "0"); },
     {"<step> has cnt=\"0\": a transfer of no chunks"}},
    {"ADeletedReceiveLeavesAMessageUnreceived", [](Ring& ring) { ring.erase(1, 0, 5); },
     {"gpu 0 tb 1 step 5 sends to gpu 1 on channel 0 a message no step receives"}},
    {"ADeletedSendDeadlocksItsReceive", [](Ring& ring) { ring.erase(0, 1, 5); },
     {"gpu 1 tb 0 step 5 deadlocks: 46 of 47 steps ran, then none could; it waits for a message from gpu 0"}},
    {"ASendToAnotherPeerDeadlocksTheOneLeftWaiting", [](Ring& ring) { ring.set(0, 1, -1, "send", "2"); },
     {"gpu 1 tb 0 step 0 deadlocks", "waits for a message from gpu 0 on channel 0, which no tb sends"}},
    {"AnRrcTurnedIntoAnRLosesAContribution", [](Ring& ring) { ring.set(0, 0, 0, "type", "r"); },
     {"gpu 0 chunk 2 ends without exactly one contribution of every gpu"}},
    // Sending chunk 2 then waits for the all-gather's receive of chunk 2, which needs that send to go round.
    {"ADependencyOnALaterStepDeadlocks", [](Ring& ring) { ring.set(0, 1, 1, "deps", "4"); },
     {"deadlocks", "it waits for gpu 0 tb 1 step 1"}},
    {"SendsThatNoLongerWaitForTheirReductionSendPartialSums",
     [](Ring& ring) {
       for (int step = 1; step < 6; ++step) ring.set(1, 1, step, "depid", "-1"), ring.set(1, 1, step, "deps", "-1");
     },
     {"ends without exactly one contribution of every gpu (sends run as early as they can"}},
    {"AWaitForAStepWithoutHasdepWouldNeverEnd", [](Ring& ring) { ring.set(0, 0, 0, "hasdep", "0"); },
     {"gpu 0 tb 1 step 1: depends on tb 0 step 0, which has hasdep=\"0\""}},
    {"AnUnknownStepTypeIsRefused", [](Ring& ring) { ring.set(0, 0, 0, "type", "rcs"); },
     {"gpu 0 tb 0 step 0: <step> has type=\"rcs\", none of s, r, rrc, nop"}},
    {"AnUnknownElementIsRefused", [](Ring& ring) { ring.line(2, 1, 3) += "<copy/>"; },
     {"gpu 2 tb 1 step 3: <copy> where the format has <step>"}},
    {"AnUnknownAttributeIsRefused", [](Ring& ring) { ring.set(2, 1, 3, "cnt", "1\" redop=\"sum"); },
     {"gpu 2 tb 1 step 3: <step> has an unexpected redop"}},
    {"ATruncatedDocumentIsRefused", [](Ring& ring) { ring.lines.resize(ring.lines.size() / 2); },
     {"the document: ends before </algo>"}},
};

class DoctoredRing : public ::testing::TestWithParam<Break> {};

TEST_P(DoctoredRing, IsRefusedForItsReason) {
  Ring ring;
  GetParam().make(ring);
  const std::optional<std::string> fault = mscclXmlFault(ring.text());
  ASSERT_TRUE(fault.has_value()) << "accepted";
  for (const std::string& mention : GetParam().faultMentions) EXPECT_NE(fault->find(mention), std::string::npos) << *fault;
}

INSTANTIATE_TEST_SUITE_P(EveryBreak, DoctoredRing, ::testing::ValuesIn(kBreaks),
                         [](const ::testing::TestParamInfo<Break>& info) { return info.param.name; });

TEST(MscclXmlReadBack, PassesEveryByteOnAndReadsThemInWhateverPiecesTheyCome) {
  const std::string xml = exportOf(allreduce("halving-doubling", 6, 37));
  std::ostringstream out;
  MscclXmlReadBack readBack(out);
  for (std::size_t at = 0; at < xml.size(); at += 7) readBack << xml.substr(at, 7);
  EXPECT_EQ(readBack.fault(), std::nullopt);
  EXPECT_EQ(out.str(), xml);
}

TEST(MscclXmlReadBack, ARefusedExportLeavesNoFileBehind) {
  // As `ddlsim schedule --msccl-xml --out` does: written through the read-back into writeOutput's file,
  // which a fault found at the end removes.
  const std::string path = (std::filesystem::temp_directory_path() / "msccl_xml_check_test.xml").string();
  std::filesystem::remove(path);
  std::string xml = exportOf(allreduce("ring", 3, 3));
  xml.replace(xml.find("type=\"rrc\""), 10, "type=\"r\"");
  EXPECT_THROW(writeOutput(path,
                           [&](std::ostream& file) {
                             MscclXmlReadBack readBack(file);
                             readBack << xml;
                             if (readBack.fault()) throw std::logic_error("refused");
                           }),
               std::logic_error);
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace ddl::testing
