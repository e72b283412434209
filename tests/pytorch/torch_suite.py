"""PyTorch's own distributed test suite (torch/testing/_internal/distributed/distributed_test.py, as Debian's
python3-torch ships it) over one backend, on CPU, with WORLD_SIZE ranks spawned per test as torch's CI spawns
them. Writes each test's outcome to a JSON file:

    WORLD_SIZE=2 python3 torch_suite.py BACKEND OUTCOMES.json [TEST_NAME_SUBSTRING]

BACKEND is "gloo" or "ddlscale"; ddlscale is declared a plugin backend with DDP and subgroups, so that the
tests torch opens to such a backend run (the rest are gated to gloo or nccl by name and skip). The ranks meet
through a FileStore (torch's init_method file://), so ddlscale runs over its TCP transport. Debian lacks the
expecttest module, which torch's test base imports for tests this suite does not use: a stand-in takes its
place. Each test has DISTRIBUTED_TESTS_DEFAULT_TIMEOUT seconds (60 here, torch's 300 otherwise).
"""
import json
import os
import sys
import types
import unittest

BACKEND, OUTCOMES = sys.argv[1], sys.argv[2]
PATTERN = sys.argv[3] if len(sys.argv) > 3 else ""
os.environ["BACKEND"] = BACKEND
os.environ.setdefault("WORLD_SIZE", "2")
os.environ.setdefault("DISTRIBUTED_TESTS_DEFAULT_TIMEOUT", "60")
os.environ.setdefault("TEMP_DIR", os.path.join(os.path.dirname(os.path.abspath(OUTCOMES)), "torch-suite-tmp"))

if "expecttest" not in sys.modules:
    stand_in = types.ModuleType("expecttest")
    stand_in.ACCEPT = False
    stand_in.TestCase = unittest.TestCase
    sys.modules["expecttest"] = stand_in

import torch.distributed  # noqa: E402

if BACKEND == "ddlscale":
    import ddlscale_torch  # noqa: E402,F401  (registers the backend, here and in every spawned rank)
    from torch.testing._internal.common_distributed import DistTestCases  # noqa: E402
    for feature in ("plugin", "ddp", "subgroup"):
        DistTestCases.backend_feature[feature].add(BACKEND)

from torch.testing._internal.distributed.distributed_test import DistributedTest, TestDistBackend  # noqa: E402


class TestSuite(TestDistBackend, DistributedTest._DistTestBase):
    def setUp(self):
        super().setUp()
        self._spawn_processes()


class Outcomes(unittest.TextTestResult):
    """Each test's outcome by name: passed, skipped, failed or error, and the last lines of what went wrong."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.outcomes = {}

    def _name(self, test):
        return test.id().rsplit(".", 1)[-1]

    def addSuccess(self, test):
        super().addSuccess(test)
        self.outcomes[self._name(test)] = {"outcome": "passed"}

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.outcomes[self._name(test)] = {"outcome": "skipped", "why": str(reason)[:200]}

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.outcomes[self._name(test)] = {"outcome": "failed", "why": self._exc_info_to_string(err, test)[-600:]}

    def addError(self, test, err):
        super().addError(test, err)
        self.outcomes[self._name(test)] = {"outcome": "error", "why": self._exc_info_to_string(err, test)[-600:]}


if __name__ == "__main__":
    os.makedirs(os.environ["TEMP_DIR"], exist_ok=True)
    loader = unittest.TestLoader()
    suite = unittest.TestSuite(test for test in loader.loadTestsFromTestCase(TestSuite) if PATTERN in test.id())
    result = unittest.TextTestRunner(resultclass=Outcomes, verbosity=1, stream=sys.stderr).run(suite)
    with open(OUTCOMES, "w") as file:
        json.dump(result.outcomes, file, indent=1, sort_keys=True)
    counts = {}
    for outcome in result.outcomes.values():
        counts[outcome["outcome"]] = counts.get(outcome["outcome"], 0) + 1
    print(f"torch's distributed suite over {BACKEND}, {os.environ['WORLD_SIZE']} ranks: {counts}", flush=True)
