"""Deliverable 3's five rules, and for each command and entry point what holds it to each: a case of cases.py
(run by bad_inputs_test.py: exit 2, the fault named, nothing on standard output, nothing written), a gtest
("gtest: Suite.Name", a TEST in tests/), a Python test ("unittest: PATH: Class.test_name"), or, where a rule
does not reach a command, "not applicable: " and why. Where a command breaks a rule today the entry says so,
"gap: ", with the command that shows it and what it did: a listing that only named what passes would read as
if the rule held everywhere. bad_inputs_test.py's RulesListing checks that every name here exists and that
every command of a rule's scope has an entry.

Commands are named as their users type them: "ddlsim SCENARIO", "ddlsim calibrate network",
"analysis/ddlcompare", "scripts/slurm/ddlsim-sweep.sbatch"; the C API's entries are its functions. In a gap's
command, FILE stands for any good input of that kind (a shipped scenario, topology, table or results file).
"""
import collections

Rule = collections.namedtuple("Rule", "key statement")

SAME_EXPERIMENT = Rule("same-experiment", "Every command that reads several inputs checks they describe the same experiment.")
OUTGROW = Rule("outgrow", "Every command that can outgrow the machine estimates memory and time first and refuses with the numbers.")
EXPORTER = Rule("exporter", "Every exporter escapes or refuses what its format cannot hold and verifies what it exports.")
TWO_OUTPUTS = Rule("two-outputs", "No two outputs of one command may be the same file, nor one of its inputs.")
HANDLES = Rule("handles", "Every C API handle used after it is destroyed gives a defined error.")

# Every command and entry point that takes arguments: ddlsim's and ddlrun's subcommands (RulesListing checks
# these against their --help), every program of analysis/ and scripts/ (checked against the folders), the
# cluster and the PyTorch entry points.
COMMANDS = [
    "ddlsim SCENARIO", "ddlsim collective", "ddlsim tune", "ddlsim platform", "ddlsim schedule", "ddlsim algorithms",
    "ddlsim effects", "ddlsim calibrate network", "ddlsim calibrate effects", "ddlsim model import",
    "ddlrun bench", "ddlrun train",
    "analysis/ddlcompare", "analysis/merge_results", "analysis/plot_scaling", "analysis/plot_sensitivity",
    "analysis/plot_tuning", "analysis/plot_validation", "analysis/plot_collective_validation", "analysis/tuning_check",
    "analysis/validate", "analysis/validate_collectives", "analysis/bench_simulator", "analysis/regenerate_plots",
    "analysis/compare_on_emulated_cluster", "analysis/tune_on_emulated_cluster", "analysis/train_on_emulated_cluster",
    "analysis/validate_calibration", "analysis/tune_this_machine", "analysis/measure_job_speed",
    "runtime/emulated_cluster/cluster",
    "scripts/build", "scripts/fuzz", "scripts/install-dependencies", "scripts/main", "scripts/test", "scripts/validate-gpu",
    "scripts/carry-dependencies", "scripts/check-gpu-build",
    "scripts/slurm/ddlsim-sweep.sbatch", "scripts/slurm/ddlrun-bench.sbatch", "scripts/slurm/ddlrun-train.sbatch",
    "python3 -m ddlscale_torch.profile", "python3 -m ddlscale_torch.train",
]

# The C API's calls that take a handle (RulesListing checks this against runtime/library's header).
C_API = [
    "ddl_comm_destroy", "ddl_comm_rank", "ddl_comm_size", "ddl_comm_set_timeout", "ddl_comm_set_algorithm",
    "ddl_comm_set_tuning", "ddl_comm_set_schedule", "ddl_comm_describe", "ddl_allreduce", "ddl_iallreduce",
    "ddl_reduce_scatter", "ddl_ireduce_scatter", "ddl_allgather", "ddl_iallgather", "ddl_broadcast", "ddl_ibroadcast",
    "ddl_alltoallv", "ddl_ialltoallv", "ddl_send", "ddl_isend", "ddl_recv", "ddl_irecv", "ddl_recv_any", "ddl_irecv_any",
    "ddl_barrier", "ddl_wait", "ddl_test",
]

SCOPE = {SAME_EXPERIMENT: COMMANDS, OUTGROW: COMMANDS, EXPORTER: COMMANDS, TWO_OUTPUTS: COMMANDS, HANDLES: C_API}


def each(commands, holder):
    """One entry per command, all held (or not reached) alike."""
    return [(command, holder) for command in commands]


SCRIPTS = ["scripts/build", "scripts/fuzz", "scripts/install-dependencies", "scripts/main", "scripts/test", "scripts/validate-gpu",
           "scripts/carry-dependencies", "scripts/check-gpu-build"]
LISTINGS = ["ddlsim algorithms", "ddlsim effects"]
ORCHESTRATORS = ["analysis/compare_on_emulated_cluster", "analysis/tune_on_emulated_cluster", "analysis/train_on_emulated_cluster",
                 "analysis/validate_calibration", "analysis/tune_this_machine"]
ONE_INPUT_PLOTS = ["analysis/plot_sensitivity", "analysis/plot_tuning", "analysis/plot_validation", "analysis/plot_collective_validation"]
PLOTS = ["analysis/plot_scaling", *ONE_INPUT_PLOTS]
PLOT_NAMES = [path.split("/")[1] for path in PLOTS]

RULES = {
    SAME_EXPERIMENT: [
        ("ddlsim SCENARIO", "scenario: auto with a table of another topology"),
        ("ddlsim SCENARIO", "scenario: auto with fp32 tables for fp16 gradients"),
        ("ddlsim SCENARIO", "scenario: a GPU the model has no profile for"),
        ("ddlsim SCENARIO", "scenario: a sequence length the model is not profiled at"),
        ("ddlsim SCENARIO", "ddlsim: --sweep-values of another sweep"),
        ("ddlsim SCENARIO", "ddlsim under mpirun: ranks started with different scenario files"),
        ("ddlsim SCENARIO", "ddlsim under mpirun: ranks started with different --gpus"),
        ("ddlsim collective", "ddlsim collective --algorithm auto: a table of another topology"),
        ("ddlsim collective", "ddlsim collective --algorithm auto: a table for other GPUs"),
        ("ddlsim collective", "ddlsim collective --algorithm auto: a table of allreduce for a reduce-scatter"),
        ("ddlsim collective", "ddlsim collective: --schedule for other --gpus"),
        ("ddlsim collective", "ddlsim collective --algorithm auto: a float32 table for 2-byte elements"),
        ("ddlsim tune", "not applicable: reads one input, the topology"),
        ("ddlsim platform", "not applicable: reads one input, the topology"),
        ("ddlsim schedule", "not applicable: reads one input (--from); --algorithm auto, the one that would read a table, is refused"),
        *each(LISTINGS, "not applicable: reads no input"),
        ("ddlsim calibrate network", "ddlsim calibrate network: a sweep of more ranks per host than a node has"),
        ("ddlsim calibrate network", "ddlsim calibrate network: a sweep whose hosts its ranks do not fill"),
        ("ddlsim calibrate effects", "ddlsim calibrate effects: measurements of another GPU"),
        ("ddlsim model import", "not applicable: reads one input, the profile"),
        ("ddlrun bench", "ddlrun bench: a table for other ranks"),
        ("ddlrun bench", "ddlrun bench: --schedule for 4 ranks on 2"),
        ("ddlrun bench", "ddlrun bench: --schedule of float32 run as half"),
        ("ddlrun bench", "ddlrun bench --algorithm auto: a table of allreduce for an all-gather"),
        ("ddlrun bench", "ddlrun bench --algorithm auto: a float32 table run as float16"),
        ("ddlrun bench", "ddlrun bench under mpirun: ranks started with different command lines"),
        ("ddlrun train", "ddlrun train: auto without a table for the job's ranks"),
        ("ddlrun train", "ddlrun train: auto with a table of another topology"),
        ("ddlrun train", "ddlrun train under mpirun: ranks started with different command lines"),
        ("analysis/ddlcompare", "ddlcompare: no point matches"),
        ("analysis/ddlcompare", "ddlcompare: two joined points of different element types"),
        ("analysis/merge_results", "merge_results: one part given twice"),
        ("analysis/plot_scaling", "plot_scaling: a --scenario of another experiment"),
        *each(ONE_INPUT_PLOTS, "not applicable: reads one input"),
        ("analysis/tuning_check", "tuning_check: a candidate measured on other ranks than the table's"),
        ("analysis/tuning_check", "tuning_check: a candidate measured for another collective"),
        ("analysis/tuning_check", "tuning_check: the auto run on other ranks than the table's"),
        ("analysis/tuning_check", "tuning_check: the auto run choosing otherwise at the last size"),
        ("analysis/tuning_check", "tuning_check: a candidate measured of another algorithm"),
        ("analysis/validate", "validate: a measured set predicted from another experiment's scenario"),
        ("analysis/validate_collectives", "not applicable: reads one input, its corpus of published figures"),
        ("analysis/bench_simulator", "not applicable: reads no input file; it makes each platform and run itself"),
        ("analysis/regenerate_plots", "not applicable: reads only the committed data its own table names"),
        *each(ORCHESTRATORS, "not applicable: reads no input file; every file a run joins, it made in that run"),
        ("runtime/emulated_cluster/cluster", "not applicable: reads no input file"),
        *each(SCRIPTS, "not applicable: reads no input file"),
        ("scripts/slurm/ddlsim-sweep.sbatch", "unittest: tests/scripts/slurm_test.py: "
                                              "SweepSharesTest.test_shares_of_another_sweep_or_a_missing_one_are_refused_and_nothing_is_written"),
        ("scripts/slurm/ddlrun-bench.sbatch", "not applicable: hands its arguments to ddlrun bench, whose entries hold them"),
        ("scripts/slurm/ddlrun-train.sbatch", "not applicable: hands its arguments to ddlrun train, whose entries hold them"),
        ("python3 -m ddlscale_torch.profile", "not applicable: reads no input; it generates its data"),
        ("python3 -m ddlscale_torch.train", "not applicable: reads no input; it generates its data"),
        ("analysis/measure_job_speed", "not applicable: reads no input; its jobs generate their data"),
    ],
    OUTGROW: [
        ("ddlsim SCENARIO", "scenario: 65536 GPUs in a ring: more memory than there is"),
        ("ddlsim SCENARIO", "scenario: a baseline too large to simulate here"),
        ("ddlsim SCENARIO", "ddlsim: a sweep point larger than this machine"),
        ("ddlsim SCENARIO", "ddlsim: a file larger than this machine can parse"),
        ("ddlsim SCENARIO", "ddlsim: --samples over a million simulations"),
        ("ddlsim collective", "ddlsim collective: 4096 GPUs in a ring: more memory than there is"),
        ("ddlsim collective", "ddlsim collective: 4096 GPUs in a ring under a 4 GB ulimit -v"),
        ("ddlsim collective", "ddlsim collective: -f 1.0001: too many sizes"),
        ("ddlsim collective", "ddlsim collective --algorithm auto: a ring at the small size of a 16384-GPU table"),
        ("ddlsim tune", "ddlsim tune: 65536 GPUs on SimGrid's engine: more memory than there is"),
        ("ddlsim platform", "ddlsim platform: an XML file of one leaf of 16000 nodes"),
        ("ddlsim schedule", "ddlsim schedule: --ranks 65536 in a ring: more memory than there is"),
        *each(LISTINGS, "not applicable: prints a fixed list"),
        ("ddlsim calibrate network", "ddlsim calibrate network: a 256-rank ring larger than this machine"),
        ("ddlsim calibrate effects", "not applicable: simulates nothing; a fit over the measured points, linear in them"),
        ("ddlsim model import", "not applicable: linear in the profile it reads"),
        ("ddlrun bench", "ddlrun bench: -e 1000G: more memory than there is"),
        ("ddlrun bench", "ddlrun bench: 2 GiB on 2 threads under a 4 GB ulimit -v"),
        ("ddlrun bench", "ddlrun bench: 1024 threads' stacks under a 4 GB ulimit -v"),
        ("ddlrun bench", "ddlrun bench: 1-byte pieces of 64 MiB"),
        ("ddlrun bench", "ddlrun bench under mpirun: two ranks' buffers larger than this machine"),
        ("ddlrun train", "ddlrun train: a model larger than this machine"),
        ("ddlrun train", "ddlrun train under mpirun: two ranks' model larger than this machine"),
        *each(["analysis/ddlcompare", "analysis/merge_results", *PLOTS, "analysis/tuning_check"],
              "not applicable: linear in the files it reads, which are ddlsim's and ddlrun's results"),
        ("analysis/validate", "validate: --samples beyond ddlsim's"),
        ("analysis/validate_collectives", "not applicable: its rows are the committed corpus, each a ddlsim collective run, "
                                          "which estimates for itself"),
        ("analysis/bench_simulator", "bench_simulator: 65536 ranks: more memory than there is"),
        ("analysis/regenerate_plots", "not applicable: draws committed data; --simulate runs ddlsim on the shipped scenarios"),
        # The two emulated-cluster scripts give their rank count (every node's ranks run here) to the same
        # estimate as tune_this_machine's case holds (analysis/sweep_check.sh); no case runs them with many
        # nodes, since one that failed to refuse would build that many network namespaces.
        ("analysis/compare_on_emulated_cluster", "compare_on_emulated_cluster: a buffer larger than this machine"),
        ("analysis/tune_on_emulated_cluster", "tune_on_emulated_cluster: a buffer larger than this machine"),
        ("analysis/train_on_emulated_cluster", "train_on_emulated_cluster: --corun copies larger than this machine"),
        ("analysis/train_on_emulated_cluster", "train_on_emulated_cluster: more ranks than this machine holds models for"),
        ("analysis/validate_calibration", "validate_calibration: eight ranks' models larger than this machine"),
        ("analysis/tune_this_machine", "tune_this_machine: a buffer larger than this machine"),
        ("analysis/measure_job_speed", "measure_job_speed: a batch larger than this machine"),
        ("analysis/tune_this_machine", "tune_this_machine: more ranks than this machine holds buffers for"),
        ("runtime/emulated_cluster/cluster", "not applicable: namespaces and one bridge process; what runs in them is ddlrun's"),
        *each(["scripts/build", "scripts/install-dependencies", "scripts/main", "scripts/test"],
              "not applicable: a fixed build and test plan"),
        ("scripts/fuzz", "not applicable: runs for the SECONDS it is given"),
        ("scripts/validate-gpu", "not applicable: a fixed plan sized to one GPU"),
        ("scripts/carry-dependencies", "not applicable: copies five named packages' files, 6 MiB, and refuses a folder over 64 MiB"),
        ("scripts/check-gpu-build", "not applicable: a fixed build and test plan"),
        ("scripts/slurm/ddlsim-sweep.sbatch", "not applicable: plans with ddlsim --dry-run, and each task is ddlsim, whose "
                                              "entries hold it"),
        ("scripts/slurm/ddlrun-bench.sbatch", "not applicable: hands its arguments to ddlrun bench, whose entries hold them"),
        ("scripts/slurm/ddlrun-train.sbatch", "not applicable: hands its arguments to ddlrun train, whose entries hold them"),
        ("python3 -m ddlscale_torch.profile", "ddlscale_torch.profile: a batch larger than this machine"),
        ("python3 -m ddlscale_torch.profile", "ddlscale_torch.profile: --corun copies larger than this machine"),
        ("python3 -m ddlscale_torch.profile", "ddlscale_torch.profile: a batch larger than ulimit -v lets it map"),
        ("python3 -m ddlscale_torch.profile", "unittest: tests/pytorch/memory_estimate_test.py: Floor.test_the_floor_lies_under_what_a_profile_step_takes"),
        ("python3 -m ddlscale_torch.train", "ddlscale_torch.train: a batch larger than this machine"),
        ("python3 -m ddlscale_torch.train", "ddlscale_torch.train: torchrun's ranks here larger than this machine"),
    ],
    EXPORTER: [
        ("ddlsim SCENARIO", "ddlsim: --plot to a .gif"),
        ("ddlsim SCENARIO", "ddlsim: --sensitivity's --plot a .gif"),
        ("ddlsim SCENARIO", "ddlsim: --trace a directory"),
        ("ddlsim SCENARIO", "ddlsim: --csv and --json"),
        ("ddlsim SCENARIO", "scenario file: invalid UTF-8"),
        ("ddlsim SCENARIO", "gtest: DdlsimSimulate.PrintsATableOrCsvAndWritesFilesWhole"),
        ("ddlsim SCENARIO", "gtest: DdlsimSimulate.TraceSimulatesTheTracedPointAloneAsTheSweepWould"),
        ("ddlsim collective", "ddlsim collective: a label that is not UTF-8"),
        ("ddlsim tune", "ddlsim tune: --plot to a .txt"),
        ("ddlsim platform", "ddlsim platform: an XML file of one leaf of 16000 nodes"),
        ("ddlsim platform", "gtest: PlatformXml.LinkNamesThatXmlMustEscapeAreWrittenSoThatSimGridReadsThemBack"),
        ("ddlsim platform", "gtest: PlatformXml.LoadsIntoSimGridWithTheSameRoutes"),
        ("ddlsim platform", "gtest: PlatformXml.TheReadBackNamesALinkSimGridWouldTimeOtherwise"),
        ("ddlsim platform", "ddlsim platform: an XML file of a link named with a control character"),
        # Not a gap: --msccl-xml of more than 256 steps a threadblock (a ring of 256 ranks has 510). The MSCCL XML format holds
        # any number of steps; the limit is one MSCCL runtime's (it varies by version), so ddlsim writes the file and warns,
        # naming the threadblocks over it. (No "not applicable" entry: the rule reaches ddlsim schedule, held below.)
        ("ddlsim schedule", "ddlsim schedule: --msccl-xml of a reduce-scatter"),
        ("ddlsim schedule", "ddlsim schedule: --msccl-xml of an empty buffer"),
        ("ddlsim schedule", "ddlsim schedule: --msccl-xml of a buffer too small for its channels"),
        ("ddlsim schedule", "gtest: MscclXmlReadBack.ARefusedExportLeavesNoFileBehind"),
        ("ddlsim schedule", "unittest: tests/sim/msccl_xml_test.py: ExportedAllreducesRunCorrectly.test_ring"),
        *each(LISTINGS, "not applicable: prints its own table or JSON of fixed names"),
        *each(["ddlsim calibrate network", "ddlsim calibrate effects", "ddlsim model import"],
              "not applicable: writes ddlscale's own topology, scenario or model JSON, no foreign format"),
        ("ddlrun bench", "ddlrun bench: a label that is not UTF-8"),
        ("ddlrun bench", "ddlrun bench: --csv and --json"),
        ("ddlrun bench", "unittest: tests/runtime/nccl_tests_format_test.py: DdlrunBench.test_every_average_prints_nccl_tests_table"),
        ("ddlrun train", "ddlrun train: a label that is not UTF-8"),
        ("ddlrun train", "ddlrun train: --trace a directory"),
        ("ddlrun train", "unittest: tests/runtime/trace_test.py: IterationTimelines.test_the_measured_timeline_has_each_algorithm_and_rank"),
        ("analysis/ddlcompare", "ddlcompare: --plot without an image extension"),
        ("analysis/ddlcompare", "ddlcompare: a --title that is not UTF-8"),
        *[(f"analysis/{tool}", f"{tool}: --out a .gif") for tool in PLOT_NAMES],
        *[(f"analysis/{tool}", f"{tool}: a --title that is not UTF-8") for tool in PLOT_NAMES],
        ("analysis/validate", "validate: --plot a .gif"),
        *each(["analysis/merge_results", "analysis/tuning_check", "analysis/validate_collectives", "analysis/bench_simulator"],
              "not applicable: writes ddlscale's own JSON or text, no foreign format"),
        ("analysis/regenerate_plots", "not applicable: draws through the plot programs above, whose entries hold them"),
        *each(ORCHESTRATORS, "not applicable: exports through ddlsim, ddlrun and ddlcompare, whose entries hold them"),
        ("runtime/emulated_cluster/cluster", "not applicable: its topology JSON is ddlscale's own format"),
        *each(SCRIPTS, "not applicable: writes no file in a foreign format"),
        *each(["scripts/slurm/ddlsim-sweep.sbatch", "scripts/slurm/ddlrun-bench.sbatch", "scripts/slurm/ddlrun-train.sbatch"],
              "not applicable: ddlsim or ddlrun writes its files"),
        *each(["python3 -m ddlscale_torch.profile", "python3 -m ddlscale_torch.train"],
              "not applicable: writes ddlscale's own profile or results JSON"),
        ("analysis/measure_job_speed", "not applicable: writes ddlscale's own time factors JSON, which scenarios read "
                                       "(gtest: ScenarioErrors.NameTheFieldOfABadJobTimeFactorFile holds its reader)"),
    ],
    TWO_OUTPUTS: [
        ("ddlsim SCENARIO", "ddlsim: --plot onto the file --out writes"),
        ("ddlsim SCENARIO", "ddlsim: --trace onto its --out"),
        ("ddlsim SCENARIO", "ddlsim: --share-out onto its --out"),
        ("ddlsim SCENARIO", "ddlsim: --sensitivity's --plot onto its --out"),
        ("ddlsim SCENARIO", "ddlsim: --out onto its scenario"),
        ("ddlsim SCENARIO", "ddlsim: --trace onto its scenario"),
        ("ddlsim SCENARIO", "ddlsim: --plot onto its scenario, a file named s.png"),
        ("ddlsim SCENARIO", "ddlsim: --share-out onto its scenario"),
        ("ddlsim SCENARIO", "ddlsim: --out onto a share of --sweep-values"),
        ("ddlsim collective", "ddlsim collective: --out onto its --tuning"),
        ("ddlsim collective", "ddlsim collective: --out onto its --schedule"),
        ("ddlsim collective", "ddlsim collective: --out onto its --topology"),
        ("ddlsim tune", "ddlsim tune: --plot onto its --out"),
        ("ddlsim tune", "ddlsim tune: --out onto its --topology"),
        ("ddlsim platform", "ddlsim platform: --out onto its topology"),
        ("ddlsim schedule", "ddlsim schedule: --out onto its --from"),
        ("ddlsim schedule", "ddlsim schedule: --msccl-xml --out onto its --from"),
        *each(LISTINGS, "not applicable: writes standard output only"),
        ("ddlsim calibrate network", "ddlsim calibrate network: --out onto its sweep"),
        ("ddlsim calibrate network", "ddlsim calibrate network: --out onto its topology"),
        ("ddlsim calibrate effects", "ddlsim calibrate effects: --out onto its scenario"),
        ("ddlsim calibrate effects", "ddlsim calibrate effects: --out onto its measurements"),
        ("ddlsim model import", "ddlsim model import: --out onto its profile"),
        ("ddlrun bench", "ddlrun bench: --out onto its --tuning"),
        ("ddlrun bench", "ddlrun bench: --out onto its --schedule"),
        ("ddlrun train", "ddlrun train: --trace onto its --out"),
        ("ddlrun train", "ddlrun train: --out onto its scenario"),
        ("ddlrun train", "ddlrun train: --trace onto its scenario"),
        ("analysis/ddlcompare", "ddlcompare: --plot onto its measured file, named m.png"),
        ("analysis/merge_results", "merge_results: --out onto a part"),
        ("analysis/plot_scaling", "plot_scaling: --out onto its results, named r.png"),
        ("analysis/plot_scaling", "plot_scaling: --out onto its --scenario, named s.png"),
        *[(f"analysis/{tool}", f"{tool}: --out onto its input, named in.png")
          for tool in ("plot_sensitivity", "plot_tuning", "plot_validation", "plot_collective_validation")],
        ("analysis/tuning_check", "tuning_check: --json onto its table"),
        ("analysis/tuning_check", "tuning_check: --json onto a measurement"),
        ("analysis/validate", "validate: --plot onto its corpus, named c.png"),
        ("analysis/validate_collectives", "not applicable: writes standard output only"),
        ("analysis/bench_simulator", "not applicable: one output, the --out folder, and no input file"),
        ("analysis/regenerate_plots", "not applicable: each picture goes to its own path of the committed table"),
        *each(ORCHESTRATORS, "not applicable: one output, the --out folder, whose files it names itself, and no input file"),
        ("runtime/emulated_cluster/cluster", "not applicable: writes standard output and its own state folder"),
        *each(SCRIPTS, "not applicable: no output path is given to it"),
        ("scripts/slurm/ddlsim-sweep.sbatch", "ddlsim-sweep.sbatch: RESULTS onto its scenario"),
        *each(["scripts/slurm/ddlrun-bench.sbatch", "scripts/slurm/ddlrun-train.sbatch"],
              "not applicable: hands its arguments to ddlrun, whose entries hold them"),
        *each(["python3 -m ddlscale_torch.profile", "python3 -m ddlscale_torch.train"],
              "not applicable: one output (--out, --json) and no input file"),
        ("analysis/measure_job_speed", "not applicable: one output (--out) and no input file"),
    ],
    HANDLES: [
        *each(C_API, "unittest: tests/bad_inputs/bad_inputs_test.py: CApiHandles.test_every_call_refuses_a_destroyed_or_never_made_handle"),
        *each(["ddl_allreduce", "ddl_comm_destroy", "ddl_comm_rank", "ddl_wait", "ddl_test"],
              "gtest: LibraryHandles.AHandleUsedAfterItWasDestroyedOrNeverMadeIsRefusedNotFollowed"),
    ],
}
